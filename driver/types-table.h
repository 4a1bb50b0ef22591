/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: the transform types the module calibrates, one row each:
 * CP_TYPE(the uapi type, its struct cp_type_ops, in the type's own file).
 * Read with CP_TYPE defined, as the kernel's cgroup_subsys.h is: types.h
 * declares the ops, types.c makes cp_type_ops()'s table, and the TYPE
 * attribute's range and messages follow from the rows.
 */
CP_TYPE(CRYPTOPRIO_TYPE_SKCIPHER, cp_skcipher_ops)
CP_TYPE(CRYPTOPRIO_TYPE_AEAD, cp_aead_ops)
CP_TYPE(CRYPTOPRIO_TYPE_HASH, cp_hash_ops)
CP_TYPE(CRYPTOPRIO_TYPE_ACOMP, cp_acomp_ops)
CP_TYPE(CRYPTOPRIO_TYPE_AKCIPHER, cp_akcipher_ops)
CP_TYPE(CRYPTOPRIO_TYPE_KPP, cp_kpp_ops)
