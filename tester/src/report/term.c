/* Colours and the live progress line (see term.h). */
#include "term.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

bool colour_mode_parse(const char *s, enum colour_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = COLOUR_AUTO;
	else if (!strcmp(s, "always"))
		*m = COLOUR_ALWAYS;
	else if (!strcmp(s, "never"))
		*m = COLOUR_NEVER;
	else
		return false;
	return true;
}

bool colour_wanted(FILE *out, enum colour_mode m)
{
	if (m != COLOUR_AUTO)
		return m == COLOUR_ALWAYS;
	/* https://no-color.org: present and not empty disables colour. */
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	const char *term = getenv("TERM");
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(out));
}

const char *tc(bool colour, enum term_colour c)
{
	if (!colour)
		return "";
	switch (c) {
	case TC_RESET: return "\033[0m";
	case TC_BOLD: return "\033[1m";
	case TC_DIM: return "\033[2m";
	case TC_RED: return "\033[1;31m";
	case TC_GREEN: return "\033[32m";
	case TC_YELLOW: return "\033[33m";
	case TC_CYAN: return "\033[36m";
	}
	return "";
}

enum term_colour verdict_colour(const char *v)
{
	if (!strcmp(v, "pass"))
		return TC_GREEN;
	if (!strcmp(v, "fail"))
		return TC_RED;
	if (!strcmp(v, "error"))
		return TC_YELLOW;
	if (!strcmp(v, "informative"))
		return TC_GREEN;
	return TC_CYAN;
}

struct progress {
	FILE *out;
	bool colour, live;
	unsigned total, started, pass, info, fail, na, error;
	struct timespec t0;
	char current[160]; /* a case ID (a word of the case language, 64 characters at most) and IPv4/6 */
	bool shown; /* the live line is on the screen */
	bool stop;
	pthread_t thread;
	bool have_thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static double elapsed(const struct progress *p)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - p->t0.tv_sec) + (double)(now.tv_nsec - p->t0.tv_nsec) / 1e9;
}

static int width(const struct progress *p)
{
	struct winsize ws;
	if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/* Called with mu held. */
static void erase(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", p->out);
		p->shown = false;
	}
}

/* Called with mu held. */
static void draw(struct progress *p)
{
	if (!p->live)
		return;
	double s = elapsed(p);
	char line[512];
	int n = snprintf(line, sizeof line, "[%u/%u] %u pass, %u info, %u fail, %u n/a, %u error  %02u:%02u  %s",
			 p->started, p->total, p->pass, p->info, p->fail, p->na, p->error, (unsigned)(s / 60),
			 (unsigned)s % 60, p->current);
	int w = width(p) - 1;
	if (n > w && w > 0)
		line[w] = '\0';
	fputs("\r\033[K", p->out);
	/* The counts keep their colours; the rest stays plain. */
	fputs(tc(p->colour, TC_BOLD), p->out);
	fputs(line, p->out);
	fputs(tc(p->colour, TC_RESET), p->out);
	fflush(p->out);
	p->shown = true;
}

static void *ticker(void *arg)
{
	struct progress *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &until);
		if (!p->stop)
			draw(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct progress *progress_new(FILE *out, bool colour, bool live, unsigned total)
{
	struct progress *p = calloc(1, sizeof *p);
	if (!p)
		abort();
	p->out = out;
	p->colour = colour;
	p->live = live;
	p->total = total;
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (live) {
		/* The run's signal handlers must run on the main thread, whose
		 * waits they interrupt: the ticker blocks every signal. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		p->have_thread = pthread_create(&p->thread, NULL, ticker, p) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return p;
}

void progress_case_start(struct progress *p, const char *id, int ip_version)
{
	pthread_mutex_lock(&p->mu);
	p->started++;
	snprintf(p->current, sizeof p->current, "%s IPv%d", id, ip_version);
	draw(p);
	pthread_mutex_unlock(&p->mu);
}

void progress_print(struct progress *p, const char *text)
{
	pthread_mutex_lock(&p->mu);
	erase(p);
	fputs(text, p->out);
	fflush(p->out);
	draw(p);
	pthread_mutex_unlock(&p->mu);
}

void progress_count(struct progress *p, const char *v)
{
	pthread_mutex_lock(&p->mu);
	if (!strcmp(v, "pass"))
		p->pass++;
	else if (!strcmp(v, "fail"))
		p->fail++;
	else if (!strcmp(v, "error"))
		p->error++;
	else if (!strcmp(v, "informative"))
		p->info++;
	else
		p->na++;
	p->current[0] = '\0';
	pthread_mutex_unlock(&p->mu);
}

void progress_message(struct progress *p, FILE *stream, const char *text)
{
	if (!p) {
		fputs(text, stream);
		return;
	}
	pthread_mutex_lock(&p->mu);
	erase(p);
	fflush(p->out);
	fputs(text, stream);
	fflush(stream);
	draw(p);
	pthread_mutex_unlock(&p->mu);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->have_thread)
		pthread_join(p->thread, NULL);
	erase(p);
	fflush(p->out);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}
