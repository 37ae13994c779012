/*
 * lint's capture reader (capture_read.h). libpcap reads a classic pcap file
 * through stdio, one fread() of the record header and one of its bytes per
 * frame, each a copy; on a large capture those copies and the stdio calls
 * cost lint more than judging the frames (bench/bench_lint). Here libpcap
 * still opens the file (the header's checks and errors, the link type as a
 * DLT_ value), and then the records are read in blocks of BLOCK bytes with
 * pread() and parsed in place, as libpcap's sf-pcap.c lays them out: a
 * 16-byte header (seconds, micro- or nanoseconds, captured length, length
 * on the wire) in the file's byte order, then the captured bytes.
 */
#include "capture_read.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1u << 20)
#define RECORD_HEADER 16
#define FILE_HEADER 24
/* libpcap's largest captured length (MAXIMUM_SNAPLEN), which a block holds. */
#define MAX_CAPLEN 262144u

struct capture_read {
	pcap_t *pc;
	char *stdio_buffer;  /* the FILE's buffer, for the libpcap path */
	int fd;              /* the classic pcap path: >= 0 */
	bool swapped, nsec;
	uint32_t snaplen;
	uint8_t *block;
	size_t start, end;   /* unread bytes: block[start..end) */
	off_t offset;        /* of the file's next byte after them */
	bool eof;
	char error[PCAP_ERRBUF_SIZE + 64];
};

/* The magic numbers of a classic pcap file, either byte order. */
static bool classic_magic(const uint8_t m[4], bool *nsec)
{
	uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
	uint32_t be = __builtin_bswap32(le);
	*nsec = le == 0xa1b23c4du || be == 0xa1b23c4du;
	return *nsec || le == 0xa1b2c3d4u || be == 0xa1b2c3d4u;
}

struct capture_read *capture_read_open(const char *path, char *err, size_t n)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct capture_read *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, n, "%s: out of memory", path);
		return NULL;
	}
	c->fd = -1;
	if (!strcmp(path, "-")) { /* the standard input: libpcap alone */
		c->pc = pcap_open_offline(path, perr);
		if (!c->pc) {
			snprintf(err, n, "%s", perr);
			free(c);
			return NULL;
		}
		return c;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, n, "%s: %s", path, strerror(errno));
		free(c);
		return NULL;
	}
	c->stdio_buffer = malloc(BLOCK);
	if (c->stdio_buffer) /* the libpcap path reads in large blocks too */
		setvbuf(f, c->stdio_buffer, _IOFBF, BLOCK);
	c->pc = pcap_fopen_offline(f, perr);
	if (!c->pc) {
		snprintf(err, n, "%s: %s", path, perr);
		fclose(f);
		free(c->stdio_buffer);
		free(c);
		return NULL;
	}
	uint8_t head[FILE_HEADER];
	int fd = fileno(f);
	if (pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head && classic_magic(head, &c->nsec)) {
		c->block = malloc(BLOCK);
		if (c->block) {
			c->fd = fd;
			c->swapped = pcap_is_swapped(c->pc);
			int snap = pcap_snapshot(c->pc);
			c->snaplen = snap > 0 && (unsigned)snap <= MAX_CAPLEN ? (uint32_t)snap : MAX_CAPLEN;
			c->offset = FILE_HEADER; /* the header libpcap has checked */
		}
	}
	return c;
}

int capture_read_datalink(const struct capture_read *c)
{
	return pcap_datalink(c->pc);
}

/* Fills the block so that it holds `want` unread bytes, if the file has them. */
static void fill(struct capture_read *c, size_t want)
{
	if (c->end - c->start >= want || c->eof)
		return;
	memmove(c->block, c->block + c->start, c->end - c->start);
	c->end -= c->start;
	c->start = 0;
	while (c->end < want && !c->eof) {
		/* pread: libpcap's stdio stream has moved the file offset. */
		ssize_t got = pread(c->fd, c->block + c->end, BLOCK - c->end, c->offset);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			c->eof = true; /* a read error ends the file short, as a truncation */
			break;
		}
		c->end += (size_t)got;
		c->offset += got;
	}
}

static uint32_t field(const struct capture_read *c, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return c->swapped ? __builtin_bswap32(v) : v;
}

int capture_read_next(struct capture_read *c, struct capture_frame *f)
{
	if (c->fd < 0) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(c->pc, &h, &data);
		if (rc == 1) {
			f->data = data;
			f->caplen = h->caplen;
			f->len = h->len;
			f->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * 1000u;
			return 1;
		}
		if (rc == PCAP_ERROR)
			snprintf(c->error, sizeof c->error, "%s", pcap_geterr(c->pc));
		return rc == PCAP_ERROR ? -1 : 0;
	}
	fill(c, RECORD_HEADER);
	size_t have = c->end - c->start;
	if (have == 0)
		return 0;
	if (have < RECORD_HEADER) {
		snprintf(c->error, sizeof c->error,
			 "truncated dump file; tried to read %u header bytes, only got %zu", RECORD_HEADER, have);
		return -1;
	}
	const uint8_t *h = c->block + c->start;
	uint32_t sec = field(c, h), frac = field(c, h + 4), incl = field(c, h + 8), orig = field(c, h + 12);
	if (incl > MAX_CAPLEN) {
		snprintf(c->error, sizeof c->error, "invalid packet capture length %u, bigger than maximum of %u",
			 incl, MAX_CAPLEN);
		return -1;
	}
	fill(c, RECORD_HEADER + (size_t)incl);
	have = c->end - c->start;
	if (have < RECORD_HEADER + (size_t)incl) {
		snprintf(c->error, sizeof c->error,
			 "truncated dump file; tried to read %u captured bytes, only got %zu", incl,
			 have - RECORD_HEADER);
		return -1;
	}
	f->data = c->block + c->start + RECORD_HEADER;
	/* Beyond the snapshot length libpcap keeps the first snaplen bytes. */
	f->caplen = incl > c->snaplen ? c->snaplen : incl;
	f->len = orig;
	f->ts_ns = (uint64_t)sec * 1000000000u + (uint64_t)(c->nsec ? frac / 1000u : frac) * 1000u;
	c->start += RECORD_HEADER + (size_t)incl;
	return 1;
}

const char *capture_read_error(const struct capture_read *c)
{
	return c->error;
}

void capture_read_close(struct capture_read *c)
{
	if (!c)
		return;
	pcap_close(c->pc); /* closes the file */
	free(c->stdio_buffer);
	free(c->block);
	free(c);
}
