/* The agent protocol's authentication (agent_auth.h). */
#include "agent_auth.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <glib.h>

bool ap_auth_random(uint8_t *out, size_t n, char *err, size_t errlen)
{
	/* The kernel's generator, not GLib's g_random_* (a Mersenne Twister
	 * whose output can be predicted from enough of it). */
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom(out + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "getrandom: %s", r < 0 ? strerror(errno) : "no bytes");
			return false;
		}
		got += (size_t)r;
	}
	return true;
}

void ap_auth_proof(enum ap_auth_role role, const char *token, size_t token_len, uint32_t version,
		   const uint8_t agent_nonce[AP_AUTH_NONCE_BYTES], const uint8_t tester_nonce[AP_AUTH_NONCE_BYTES],
		   uint8_t proof[AP_AUTH_PROOF_BYTES])
{
	/* The label says who proves, so that one side's proof never serves
	 * as the other's (reflection); its NUL ends it unambiguously. */
	static const char agent_label[] = "roce-agent agent proof";
	static const char tester_label[] = "roce-agent tester proof";
	const char *label = role == AP_AUTH_AGENT ? agent_label : tester_label;
	size_t label_len = (role == AP_AUTH_AGENT ? sizeof agent_label : sizeof tester_label); /* with its NUL */
	const uint8_t v[4] = { (uint8_t)(version >> 24), (uint8_t)(version >> 16), (uint8_t)(version >> 8),
			       (uint8_t)version };
	GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, (const guchar *)token, token_len);
	g_hmac_update(h, (const guchar *)label, (gssize)label_len);
	g_hmac_update(h, v, sizeof v);
	g_hmac_update(h, agent_nonce, AP_AUTH_NONCE_BYTES);
	g_hmac_update(h, tester_nonce, AP_AUTH_NONCE_BYTES);
	gsize n = AP_AUTH_PROOF_BYTES;
	g_hmac_get_digest(h, proof, &n);
	g_hmac_unref(h);
}

bool ap_auth_same(const uint8_t *a, const uint8_t *b, size_t n)
{
	/* Every byte is looked at whatever the first difference: the time
	 * tells nothing of how much of a guess was right. */
	volatile uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (uint8_t)(a[i] ^ b[i]);
	return d == 0;
}

void ap_auth_encode(const uint8_t in[AP_AUTH_NONCE_BYTES], char out[AP_AUTH_B64_SIZE])
{
	gchar *b = g_base64_encode(in, AP_AUTH_NONCE_BYTES);
	g_strlcpy(out, b, AP_AUTH_B64_SIZE);
	g_free(b);
}

static bool b64_char(char c)
{
	return g_ascii_isalnum(c) || c == '+' || c == '/';
}

bool ap_auth_decode(const char *text, uint8_t out[AP_AUTH_NONCE_BYTES])
{
	/* 32 bytes are 43 characters and one '=' (g_base64_decode skips
	 * junk, so the form is checked first). */
	if (!text || strlen(text) != AP_AUTH_B64_LEN || text[AP_AUTH_B64_LEN - 1] != '=')
		return false;
	for (size_t i = 0; i < AP_AUTH_B64_LEN - 1; i++)
		if (!b64_char(text[i]))
			return false;
	gsize n = 0;
	guchar *b = g_base64_decode(text, &n);
	bool ok = n == AP_AUTH_NONCE_BYTES;
	if (ok) {
		/* The last character's unused low bits must be zero, so that
		 * each 32 bytes have exactly one spelling. */
		gchar *again = g_base64_encode(b, n);
		ok = strcmp(again, text) == 0;
		g_free(again);
	}
	if (ok)
		memcpy(out, b, AP_AUTH_NONCE_BYTES);
	g_free(b);
	return ok;
}

/* ---- The token's floor ---- */

struct alphabet {
	const char *name;
	unsigned centibits; /* per character, in hundredths of a bit */
};

static struct alphabet alphabet_of(const char *t, size_t len)
{
	bool digits = true, hex = true, b64 = true;
	for (size_t i = 0; i < len; i++) {
		char c = t[i];
		digits &= g_ascii_isdigit(c);
		hex &= g_ascii_isxdigit(c);
		b64 &= b64_char(c) || c == '=' || c == '-' || c == '_';
	}
	if (digits)
		return (struct alphabet){ "decimal digits", 332 };
	if (hex)
		return (struct alphabet){ "hex digits", 400 };
	if (b64)
		return (struct alphabet){ "base64 characters", 600 };
	return (struct alphabet){ "characters", 650 };
}

/* The shortest p with t[i] == t[i + p] throughout. */
static size_t period_of(const char *t, size_t len)
{
	for (size_t p = 1; p < len; p++) {
		size_t i = 0;
		while (i + p < len && t[i] == t[i + p])
			i++;
		if (i + p == len)
			return p;
	}
	return len;
}

bool ap_auth_token_check(const char *token, size_t len, char *why, size_t whylen)
{
	if (len == 0) {
		snprintf(why, whylen, "the token is empty");
		return false;
	}
	if (len > AP_AUTH_MAX_TOKEN_LEN) {
		snprintf(why, whylen, "the token is longer than %d characters", AP_AUTH_MAX_TOKEN_LEN);
		return false;
	}
	struct alphabet a = alphabet_of(token, len);
	uint64_t centibits = (uint64_t)len * a.centibits;
	if (centibits < AP_AUTH_MIN_TOKEN_BITS * 100u) {
		unsigned need = (AP_AUTH_MIN_TOKEN_BITS * 100u + a.centibits - 1) / a.centibits;
		snprintf(why, whylen,
			 "the token is too weak: %zu %s carry at most %u bits, fewer than the %d an offline search "
			 "must face (%u %s drawn at random; docs/agent.md says how to make one)",
			 len, a.name, (unsigned)(centibits / 100), AP_AUTH_MIN_TOKEN_BITS, need, a.name);
		return false;
	}
	bool seen[256] = { false };
	unsigned distinct = 0;
	for (size_t i = 0; i < len; i++)
		if (!seen[(unsigned char)token[i]]) {
			seen[(unsigned char)token[i]] = true;
			distinct++;
		}
	if (distinct < 8) {
		snprintf(why, whylen, "the token is not random: only %u different characters in %zu", distinct, len);
		return false;
	}
	size_t p = period_of(token, len);
	if (p <= len / 2) {
		snprintf(why, whylen, "the token is not random: a string of %zu characters repeated", p);
		return false;
	}
	return true;
}
