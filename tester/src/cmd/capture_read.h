#ifndef ROCE_TESTER_CAPTURE_READ_H
#define ROCE_TESTER_CAPTURE_READ_H

/*
 * Reading a capture file frame by frame for lint, as fast as the file can
 * be read: classic pcap files are read in large blocks and their records
 * handed out in place (no copy per frame); anything else libpcap opens
 * (pcapng, the standard input) goes through libpcap. Frames, timestamps
 * and errors are those libpcap gives for the same file.
 */
#include <stddef.h>
#include <stdint.h>

struct capture_read;

struct capture_frame {
	const uint8_t *data; /* valid until the next call */
	uint32_t caplen, len;
	uint64_t ts_ns; /* to the microsecond, as libpcap's default precision */
};

/* NULL on failure, with the reason in err (naming the file). */
struct capture_read *capture_read_open(const char *path, char *err, size_t n);
/* The DLT_ value of the file's link type, as pcap_datalink() gives it. */
int capture_read_datalink(const struct capture_read *c);
/* 1: *f is the next frame; 0: the end of the file; -1: an error (capture_read_error). */
int capture_read_next(struct capture_read *c, struct capture_frame *f);
const char *capture_read_error(const struct capture_read *c);
void capture_read_close(struct capture_read *c);

#endif
