#!/bin/bash
# scripts/check-sizes on small trees of its own: a file of lib/ or shared/
# missing from its folder's README.md fails it, with the file named; a
# file there by its name, or its stem, passes; a lib/ file over 900 lines
# and a cli/ function over 60 fail it.
# usage: check-sizes.sh CHECK-SIZES
set -u
check=$1
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tree: lib/a.c, lib/b.c and lib/b.h, shared/s.c, cli/x.c, README.md
# listing "a.c", "b" and "s"
tree() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/lib" "$tmp/t/shared" "$tmp/t/cli"
	printf 'int a;\n' >"$tmp/t/lib/a.c"
	printf 'int b;\n' >"$tmp/t/lib/b.c"
	printf 'extern int b;\n' >"$tmp/t/lib/b.h"
	printf 'int s;\n' >"$tmp/t/shared/s.c"
	printf 'int f(void)\n{\n\treturn 0;\n}\n' >"$tmp/t/cli/x.c"
	printf '    a.c   the first\n    b     the second\n' >"$tmp/t/lib/README.md"
	printf '    s     the shared one\n' >"$tmp/t/shared/README.md"
}
# fails ERE: check-sizes fails on the tree, its error matching ERE
fails() {
	local err
	err=$("$check" "$tmp/t" 2>&1 >/dev/null) && { echo "# passed"; return 1; }
	grep -qE "$1" <<<"$err" || { echo "# $err"; return 1; }
}

tree
ok "every file on its README: passes" bash -c '"$1" "$2" >/dev/null' _ "$check" "$tmp/t"
tree
printf 'int c;\n' >"$tmp/t/lib/c.c"
ok "lib/c.c on no README: fails, named" fails '^lib/c\.c: not on lib/README\.md'
tree
printf 'int t;\n' >"$tmp/t/shared/t.h"
ok "shared/t.h on no README: fails, named" fails '^shared/t\.h: not on shared/README\.md'
tree
seq 901 | sed 's/^/int v/; s/$/;/' >"$tmp/t/lib/a.c"
ok "a lib/ file of 901 lines: fails" fails '^lib/a\.c: 901 lines, over 900'
tree
{ printf 'int g(void)\n{\n'; seq 60 | sed 's/.*/\t;/'; printf '}\n'; } >"$tmp/t/cli/x.c"
ok "a cli/ function of 63 lines: fails" fails 'cli/x\.c:1: g\(\) is 63 lines, over 60'
done_testing
