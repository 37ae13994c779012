/*
 * The annotated capture of a run: every packet the tester sent and
 * received, in a pcapng file written with Wireshark's wiretap library,
 * each with a comment (case, step, expected vs observed) and its
 * direction. Flushed after every case so a run cut short leaves a valid
 * file.
 */
#ifndef ROCE_TESTER_CAPTURE_H
#define ROCE_TESTER_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;

/* description goes into the section header (what ran, against what). */
struct capture *capture_open(const char *path, const char *ifname, const char *description, char *err,
			     size_t errlen);
/* Writes one frame; returns its frame number (1-based), or 0 on failure.
 * A comment longer than pcapng can hold (CAPTURE_MAX_COMMENT bytes) is cut
 * visibly. */
#define CAPTURE_MAX_COMMENT 65532
uint64_t capture_write(struct capture *c, const uint8_t *frame, size_t len, uint64_t ts_ns, bool outbound,
		       const char *comment);
int capture_flush(struct capture *c);
/* Closes the file; returns 0, or -1 when the last writes failed. */
int capture_close(struct capture *c, char *err, size_t errlen);
uint64_t capture_frames(const struct capture *c);

#endif
