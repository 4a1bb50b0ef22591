/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: what a transform type is to the module. Each type's file
 * (skcipher.c, aead.c, hash.c, acomp.c, akcipher.c, kpp.c) fills one
 * struct cp_type_ops, its known-answer check included (struct
 * cp_kat_ops), and types-table.h names it under its uapi type: the rest
 * of the module (calibrate.c, run.c, resolve.c, kat.c) calls the type
 * only through it.
 */
#ifndef CRYPTOPRIO_TYPES_H
#define CRYPTOPRIO_TYPES_H

#include "cryptoprio.h"

struct cp_kat;

/*
 * The known-answer check of one type (kat.c runs it, see there). Every
 * hook but @find_reference, @judge, @answer and @settle may be NULL.
 */
struct cp_kat_ops {
	/* The reference's driver name for algorithm @name (ref.c), into @out. */
	int (*find_reference)(const char *name, char *out, size_t len);
	/* 0, or why the check cannot run on @run (in @extack). */
	int (*supported)(struct cp_run *run, struct netlink_ext_ack *extack);
	/* The input (k->in) and any buffer of the type's own. */
	int (*init)(struct cp_kat *k);
	/*
	 * The reference and the candidate answer, *@ok says whether alike.
	 * CP_RUN_ABANDONED, or any other error: the reference's, which is
	 * then no reference.
	 */
	int (*judge)(struct cp_kat *k, bool *ok);
	/*
	 * Whether the check can go on without a reference (0), or why not
	 * (in @extack).
	 */
	int (*without_reference)(struct cp_kat *k,
				 struct netlink_ext_ack *extack);
	/*
	 * Unjudged, the candidate must still answer: with no reference, or
	 * (@mismatch) one whose geometry is not the candidate's. 0,
	 * CP_RUN_ABANDONED, or the driver's error.
	 */
	int (*answer)(struct cp_kat *k, bool mismatch);
	/* Leave in every slot what the timed run works on. */
	void (*settle)(struct cp_kat *k, struct cp_result *res);
	/* For cp_kat_same_output(): fill a run's slots with the input ... */
	void (*fill)(struct cp_kat *k, struct cp_run *run);
	/* ... and a slot's answer into @to: its length, or -EIO. */
	int (*output)(struct cp_kat *k, struct cp_slot *s, u8 *to);
	/* How a mismatch is logged: "<driver>: <mismatch> <reference>". */
	const char *mismatch;
};

/*
 * Differential verification of one type (verify.c): what its cases need
 * beyond struct cp_type_ops. A type without it is not verified yet.
 */
struct cp_verify_ops {
	/*
	 * The key sizes to try, in bytes: those the reference accepts among
	 * them are the cases'. An AEAD advertises none: every size is tried.
	 */
	void (*key_range)(struct cp_tfm *t, unsigned int *min, unsigned int *max);
	/* AEAD: the longest tag, and setting the tag's length; else NULL. */
	unsigned int (*max_tag)(struct cp_tfm *t);
	int (*set_tag)(struct cp_tfm *t, unsigned int len);
	/*
	 * A hash: its answer is a digest into the slot's out, it has no
	 * direction, and a keyed one advertises a range its cases try
	 * some lengths of; an unkeyed one's range is 0..0.
	 */
	bool digest;
	/*
	 * A compressor: its answers are judged by round trips with the
	 * reference, not compared; its request's output space is dst's one
	 * entry, and @answer_len the output's length once it completed.
	 */
	bool round_trip;
	/*
	 * An akcipher or a kpp: its answer, @answer_len bytes in dst once it
	 * completed, is an integer, compared with the reference's as one;
	 * its requests are out of place, an akcipher's encryptions.
	 */
	bool integer;
	unsigned int (*answer_len)(struct cp_slot *slot);
	/*
	 * A kpp: its case's exact output, the public key's (@public) or the
	 * shared secret's; its verification's setkey, which makes a valid
	 * private key of any bytes (the type's own setkey sets a fixed one).
	 * A pointed request generates the public key where its direction
	 * (decrypt) says so, else computes the shared secret.
	 */
	unsigned int (*out_len)(const struct cp_geometry *g, bool public);
	int (*setkey)(struct cp_tfm *t, const struct cp_geometry *g,
		      const u8 *key, unsigned int len);
	/* 0, or why the candidate's algorithm is not verified (may be NULL). */
	int (*supported)(const struct cp_geometry *g,
			 struct netlink_ext_ack *extack);
	/*
	 * A hash's state: its size, and export from @slot's request into
	 * @state, import from it (synchronous calls).
	 */
	unsigned int (*state_size)(struct cp_tfm *t);
	int (*export)(struct cp_slot *slot, void *state);
	int (*import)(struct cp_slot *slot, const void *state);
	/*
	 * Point @slot's request at @src and @dst (the same list: in place):
	 * @assoclen bytes of associated data (AEAD), then @len bytes to
	 * encrypt or decrypt (compress or decompress), with slot->iv; @cb
	 * gets @data on completion. The slot's submit() sends it as it is.
	 */
	void (*req_set)(struct cp_tfm *t, struct cp_slot *slot,
			struct scatterlist *src, struct scatterlist *dst,
			unsigned int assoclen, unsigned int len,
			crypto_completion_t cb, void *data);
};

/* Where a type's requests write: in place (src), or to a dst of their own. */
enum cp_dst {
	CP_DST_NONE,
	CP_DST_DECRYPT,		/* AEAD: decryption reads the reference's ciphertext */
	CP_DST_ALWAYS,		/* output of another size (acomp, akcipher, kpp) */
};

/*
 * Operations of one transform type. @frontend_type and @frontend_mask:
 * what its crypto_alloc_*() looks up (the frontend's crypto_type, private
 * to the kernel), for resolve.c.
 */
struct cp_type_ops {
	/* The uapi type's name, in the TYPE attribute's messages (types.c). */
	const char *name;
	int (*alloc)(struct cp_tfm *t, const char *name, u32 type, u32 mask);
	void (*free)(struct cp_tfm *t);
	const char *(*driver_name)(struct cp_tfm *t);
	const char *(*alg_name)(struct cp_tfm *t);
	void (*geometry)(struct cp_tfm *t, struct cp_geometry *g);
	/* 0, or why @p cannot be calibrated with @g (in @extack); may be NULL */
	int (*check)(const struct cp_params *p, const struct cp_geometry *g,
		     struct netlink_ext_ack *extack);
	/*
	 * Set a key of @key_size cipher bytes taken from @key, which holds
	 * CRYPTOPRIO_MAX_KEY_SIZE + @g's shape.auth_key bytes (at most
	 * CP_MAX_AUTH_KEY_LEN): nonce and authentication key as @g's shape
	 * says (authenc key format).
	 */
	int (*setkey)(struct cp_tfm *t, const struct cp_geometry *g,
		      const u8 *key, unsigned int key_size);
	void *(*req_alloc)(struct cp_tfm *t);
	void (*req_free)(void *req);
	/* Point @slot's request at its buffers; @cb gets @data on completion. */
	void (*req_prepare)(struct cp_tfm *t, struct cp_slot *slot, u32 req_size,
			    const struct cp_geometry *g, bool decrypt,
			    crypto_completion_t cb, void *data);
	/*
	 * Send @slot's request (acomp sets its lengths anew each time, but
	 * for a request verify.c pointed: slot->pointed).
	 */
	int (*submit)(struct cp_slot *slot, bool decrypt);
	const struct cp_kat_ops *kat;
	const struct cp_verify_ops *verify;	/* NULL: not verified yet */
	u32 frontend_type;
	u32 frontend_mask;
	enum cp_dst dst;
	/* A request is whole blocks (the ciphers; a hash takes any length). */
	bool whole_blocks;
	/* Why setkey failed, where not "the driver refused the key size". */
	const char *key_refused;
	/* Why CALIBRATE refuses DECRYPT, or KEY_SIZE; NULL: it takes it. */
	const char *decrypt_refused;
	const char *key_size_refused;
	/* CALIBRATE's reply carries COMPRESSED_SIZE (res->compressed_size). */
	bool compressed_size;
};

/* Each type's ops, defined in its own file (types-table.h's rows). */
#define CP_TYPE(type, ops) extern const struct cp_type_ops ops;
#include "types-table.h"
#undef CP_TYPE

/* types.c: the ops of @type, NULL for none */
const struct cp_type_ops *cp_type_ops(enum cryptoprio_type type);
/*
 * types.c: the TYPE attribute's messages, of every type's name: "missing
 * attribute TYPE (skcipher, ... or kpp)" and "TYPE must be skcipher (1),
 * ... or kpp (6)". cp_types_init() writes them, at module init.
 */
int __init cp_types_init(void);
const char *cp_type_missing_msg(void);
const char *cp_type_range_msg(void);

/* kat.c: one known-answer check in progress, as the hooks see it */
struct cp_kat {
	struct cp_run *run;	/* the candidate */
	struct cp_run *ref;	/* the reference: one slot, NULL if none */
	u64 grace_ns;
	bool decrypt;		/* the calibration's direction */
	unsigned int len;	/* bytes of in, want and got */
	u8 *in;			/* the input */
	u8 *want;		/* the expected answer */
	unsigned int want_len;
	u8 *got;		/* a slot's answer */
	/* the ciphers' and hashes' check (kat.c) */
	u8 *ct;			/* the reference's ciphertext (whole buffer) */
	u8 *iv;
	bool have_ct;		/* ct holds a ciphertext */
};

/* The check of skcipher, aead and hash (kat.c). */
extern const struct cp_kat_ops cp_cipher_kat_ops;

/*
 * One request per slot of @run. CP_RUN_ABANDONED: @run is a zombie now
 * (the caller forgets it); else 0, each slot's result in its err.
 */
int cp_kat_go(struct cp_kat *k, struct cp_run *run, bool decrypt);
/*
 * The reference's answer: its slot's error, or CP_RUN_ABANDONED (then
 * k->ref is NULL: a zombie, which a synchronous reference never becomes).
 */
int cp_kat_ref_go(struct cp_kat *k, bool decrypt);
/*
 * A judge for answers that must equal the reference's: the reference
 * answers into k->want, then every slot must answer the same (the ops'
 * fill and output).
 */
int cp_kat_same_output(struct cp_kat *k, bool *ok);
/* An answer for the same: every slot of the candidate answered at all. */
int cp_kat_each_answers(struct cp_kat *k, bool mismatch);
/* A settle for the same: the input again in every slot. */
void cp_kat_refill(struct cp_kat *k, struct cp_result *res);
/*
 * @s's answer of @len bytes from its dst into @to, as the integer it is:
 * without leading zero bytes. Its length, or -EIO if the driver failed or
 * claimed more than the buffer.
 */
int cp_kat_integer(struct cp_slot *s, unsigned int len, u8 *to);

#endif /* CRYPTOPRIO_TYPES_H */
