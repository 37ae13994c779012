/*
 * The agent protocol's authentication (docs/agent-protocol.md,
 * "Authentication"), written once for roce-agent and roce-tester: the
 * nonces, the two proofs and how they are compared, and the floor a token
 * must clear. The token itself never leaves the host: each side proves
 * that it holds it with an HMAC-SHA-256 over both sides' fresh nonces.
 *
 *   agent proof  = HMAC-SHA-256(token, "roce-agent agent proof" 0x00 ||
 *                  version (4 bytes, big-endian) || agent nonce || tester nonce)
 *   tester proof = the same with "roce-agent tester proof"
 *
 * Fixed lengths after a NUL-terminated label: no two inputs share an
 * encoding, and neither side's proof is ever the other's.
 */
#ifndef ROCE_AGENT_AUTH_H
#define ROCE_AGENT_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AP_AUTH_NONCE_BYTES 32
#define AP_AUTH_PROOF_BYTES 32 /* SHA-256 */
/* Base64 (RFC 4648, padded) of 32 bytes, and its terminating NUL. */
#define AP_AUTH_B64_LEN 44
#define AP_AUTH_B64_SIZE (AP_AUTH_B64_LEN + 1)
/* What a token must carry at least, judged by its length and alphabet
 * (ap_auth_token_check): an offline search of 2^128 HMACs is out of
 * anyone's reach. */
#define AP_AUTH_MIN_TOKEN_BITS 128
/* A token file is a token, not a document. */
#define AP_AUTH_MAX_TOKEN_LEN 4096

enum ap_auth_role { AP_AUTH_AGENT, AP_AUTH_TESTER };

/* n bytes from the kernel's random generator (getrandom(2), which blocks
 * only until the pool is first seeded); false with the reason in err. */
bool ap_auth_random(uint8_t *out, size_t n, char *err, size_t errlen);

/* The proof of `role` for the session whose nonces these are. */
void ap_auth_proof(enum ap_auth_role role, const char *token, size_t token_len, uint32_t version,
		   const uint8_t agent_nonce[AP_AUTH_NONCE_BYTES], const uint8_t tester_nonce[AP_AUTH_NONCE_BYTES],
		   uint8_t proof[AP_AUTH_PROOF_BYTES]);

/* Whether two proofs are equal, in time that does not depend on where
 * they differ. */
bool ap_auth_same(const uint8_t *a, const uint8_t *b, size_t n);

/* 32 bytes as padded base64 into out (AP_AUTH_B64_SIZE bytes). */
void ap_auth_encode(const uint8_t in[AP_AUTH_NONCE_BYTES], char out[AP_AUTH_B64_SIZE]);
/* Strict padded base64 of exactly 32 bytes; false for anything else. */
bool ap_auth_decode(const char *text, uint8_t out[AP_AUTH_NONCE_BYTES]);

/* Whether the token clears the floor: at least AP_AUTH_MIN_TOKEN_BITS by
 * its length and alphabet (decimal digits count 3.32 bits each, hex
 * digits 4, the base64 alphabet 6, any other character 6.5), at least 8
 * different characters, not a shorter string repeated, and at most
 * AP_AUTH_MAX_TOKEN_LEN characters. Tokens drawn as docs/agent.md shows
 * clear it; it stops a password, a word or a pattern, not a long
 * guessable phrase. false with the reason in why. */
bool ap_auth_token_check(const char *token, size_t len, char *why, size_t whylen);

#endif
