/*
 * The TCP server: listens only on --listen HOST:PORT, one session per
 * connection (at most AGENT_MAX_SESSIONS), line framing with the 1 MiB
 * limit, and replies written without blocking. A session reads its next
 * request only when the previous reply is out, so a peer that does not read
 * costs at most one reply of memory.
 */
#define _GNU_SOURCE /* accept4 */
#include "agent.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "text.h"

static gboolean on_readable(gint fd, GIOCondition cond, gpointer data);
static gboolean on_writable(gint fd, GIOCondition cond, gpointer data);
static void queue_close(struct session *s);

static void set_reading(struct session *s, bool on)
{
	if (on && !s->in_watch && !s->closing)
		s->in_watch = g_unix_fd_add(s->fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_readable, s);
	else if (!on && s->in_watch) {
		g_source_remove(s->in_watch);
		s->in_watch = 0;
	}
}

static bool busy(const struct session *s)
{
	return s->out->len > 0 || s->poll.active || s->hung;
}

/* Handles complete lines while the session is idle. */
static void process_input(struct session *s)
{
	while (!busy(s) && !s->closing) {
		char *nl = memchr(s->in->str, '\n', s->in->len);
		if (!nl) {
			if (s->in->len > AGENT_MAX_MESSAGE) {
				struct req r = { .s = s, .err = AE_TOO_LARGE, .close_after = true };
				text_printf(r.msg, sizeof r.msg,
					   "message exceeds %u bytes without a newline; closing the connection",
					   AGENT_MAX_MESSAGE);
				g_string_truncate(s->in, 0);
				session_send_reply(s, &r);
			}
			break;
		}
		size_t len = (size_t)(nl - s->in->str);
		if (len > AGENT_MAX_MESSAGE) {
			struct req r = { .s = s, .err = AE_TOO_LARGE, .close_after = true };
			text_printf(r.msg, sizeof r.msg, "message of %zu bytes exceeds %u; closing the connection",
				   len, AGENT_MAX_MESSAGE);
			g_string_truncate(s->in, 0);
			session_send_reply(s, &r);
			break;
		}
		char *line = g_strndup(s->in->str, len);
		g_string_erase(s->in, 0, (gssize)len + 1);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len)
			agent_dispatch(s, line, len);
		g_free(line);
	}
	if (!s->closing)
		set_reading(s, !busy(s));
	else if (!s->out->len)
		queue_close(s);
}

static void flush_out(struct session *s)
{
	while (s->out->len) {
		ssize_t n = send(s->fd, s->out->str, s->out->len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			g_string_erase(s->out, 0, n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!s->out_watch)
				s->out_watch = g_unix_fd_add(s->fd, G_IO_OUT | G_IO_ERR | G_IO_HUP,
							     on_writable, s);
			return;
		}
		/* The peer went away: drop what is left. */
		g_string_truncate(s->out, 0);
		s->closing = true;
		break;
	}
	if (s->out_watch) {
		g_source_remove(s->out_watch);
		s->out_watch = 0;
	}
}

static gboolean close_idle(gpointer data)
{
	struct session *s = data;
	s->close_queued = 0;
	session_close(s);
	return G_SOURCE_REMOVE;
}

static void queue_close(struct session *s)
{
	set_reading(s, false);
	if (!s->close_queued)
		s->close_queued = g_idle_add(close_idle, s);
}

/* After output or a poll finished: close, or go on with the input. */
static void after_output(struct session *s)
{
	if (s->out->len)
		return;
	if (s->closing) {
		queue_close(s);
		return;
	}
	process_input(s);
}

static gboolean on_writable(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	struct session *s = data;
	s->out_watch = 0;
	flush_out(s);
	after_output(s);
	return G_SOURCE_REMOVE;
}

void session_send_reply(struct session *s, struct req *r)
{
	JsonBuilder *b = json_builder_new();
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "id");
	if (r->id)
		json_builder_add_value(b, json_node_copy(r->id));
	else
		json_builder_add_null_value(b);
	if (r->err) {
		json_builder_set_member_name(b, "error");
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "code");
		json_builder_add_string_value(b, agent_err_name(r->err));
		json_builder_set_member_name(b, "message");
		json_builder_add_string_value(b, r->msg);
		json_builder_end_object(b);
	} else {
		json_builder_set_member_name(b, "result");
		if (r->result) {
			json_builder_end_object(r->result);
			json_builder_add_value(b, json_builder_get_root(r->result));
		} else {
			json_builder_begin_object(b);
			json_builder_end_object(b);
		}
	}
	json_builder_end_object(b);
	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	gsize n;
	gchar *text = json_generator_to_data(g, &n);
	g_string_append_len(s->out, text, (gssize)n);
	g_string_append_c(s->out, '\n');
	g_free(text);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
	if (r->close_after)
		s->closing = true;
	if (s->agent->verbose && r->err)
		g_message("%s: error %s: %s", s->peer, agent_err_name(r->err), r->msg);
	flush_out(s);
	/* process_input's loop (or after_output) takes it from here. */
	if (s->closing && !s->out->len)
		queue_close(s);
}

static gboolean on_readable(gint fd, GIOCondition cond, gpointer data)
{
	struct session *s = data;
	(void)cond;
	char buf[65536];
	ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)) {
		s->in_watch = 0;
		session_close(s);
		return G_SOURCE_REMOVE;
	}
	s->in_watch = 0; /* process_input re-adds it when idle */
	session_feed(s, buf, n > 0 ? (size_t)n : 0);
	return G_SOURCE_REMOVE;
}

void session_feed(struct session *s, const char *data, size_t len)
{
	g_string_append_len(s->in, data, (gssize)len);
	process_input(s);
	if (s->out->len == 0 && s->closing)
		queue_close(s);
}

void session_close(struct session *s)
{
	struct agent *a = s->agent;
	if (!g_list_find(a->sessions, s))
		return;
	set_reading(s, false);
	if (s->out_watch)
		g_source_remove(s->out_watch);
	if (s->poll_timer)
		g_source_remove(s->poll_timer);
	if (s->hello_timer)
		g_source_remove(s->hello_timer);
	if (s->poll.id)
		json_node_unref(s->poll.id);
	session_cleanup(s);
	close(s->fd);
	a->sessions = g_list_remove(a->sessions, s);
	a->n_sessions--;
	if (a->verbose)
		g_message("%s: session closed", s->peer);
	g_string_free(s->in, TRUE);
	g_string_free(s->out, TRUE);
	if (s->close_queued)
		g_source_remove(s->close_queued);
	g_free(s);
}

static gboolean poll_tick(gpointer data)
{
	struct session *s = data;
	bool final = g_get_monotonic_time() >= s->poll.deadline_us;
	if (agent_poll_retry(s, final)) {
		s->poll_timer = 0;
		after_output(s);
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

/* methods_datapath.c calls this when poll_cq has to wait. */
void session_start_poll_timer(struct session *s)
{
	s->poll_timer = g_timeout_add(1, poll_tick, s);
}

static void refuse(int fd, const char *code, const char *msg)
{
	char line[256]; /* the agent's own short code and message: a cut would break the JSON */
	int n = snprintf(line, sizeof line, "{\"id\":null,\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}\n",
			 code, msg);
	if (n > 0 && (size_t)n < sizeof line)
		(void)!send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static gboolean on_accept(gint fd, GIOCondition cond, gpointer data)
{
	(void)cond;
	struct agent *a = data;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int c = accept4(fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c < 0)
		return G_SOURCE_CONTINUE;
	if (a->n_sessions >= AGENT_MAX_SESSIONS) {
		refuse(c, "resource_limit", "too many sessions (16); try again later");
		return G_SOURCE_CONTINUE;
	}
	int one = 1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	char host[64] = "?", port[16] = "?", peer[80];
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
		    NI_NUMERICHOST | NI_NUMERICSERV);
	g_snprintf(peer, sizeof peer, "%s:%s", host, port);
	session_open(a, c, peer);
	return G_SOURCE_CONTINUE;
}

static gboolean hello_deadline(gpointer data)
{
	struct session *s = data;
	s->hello_timer = 0;
	if (s->authenticated || s->closing)
		return G_SOURCE_REMOVE;
	struct req r = { .s = s, .err = AE_UNAUTHENTICATED, .close_after = true };
	text_printf(r.msg, sizeof r.msg, "no successful hello and authenticate within %g s; closing the connection",
		   s->agent->hello_timeout_ms / 1000.0);
	/* Whatever was half received is dropped. */
	g_string_truncate(s->in, 0);
	set_reading(s, false);
	session_send_reply(s, &r);
	if (s->out->len) {
		/* The peer does not read what it is sent: no waiting for it. */
		g_string_truncate(s->out, 0);
		queue_close(s);
	}
	return G_SOURCE_REMOVE;
}

struct session *session_open(struct agent *a, int fd, const char *peer)
{
	struct session *s = g_new0(struct session, 1);
	s->agent = a;
	s->fd = fd;
	g_strlcpy(s->peer, peer, sizeof s->peer);
	s->in = g_string_new(NULL);
	s->out = g_string_new(NULL);
	/* A fresh nonce for every connection: a proof recorded on another
	 * connection is worth nothing on this one. */
	char why[160];
	s->nonce_drawn = (a->nonce_source ? a->nonce_source : ap_auth_random)(s->nonce, sizeof s->nonce, why, sizeof why);
	if (!s->nonce_drawn)
		g_warning("%s: no nonce for the session (%s): it cannot authenticate", peer, why);
	session_init_handles(s);
	a->sessions = g_list_prepend(a->sessions, s);
	a->n_sessions++;
	if (a->verbose)
		g_message("%s: session opened", s->peer);
	if (a->hello_timeout_ms)
		s->hello_timer = g_timeout_add(a->hello_timeout_ms, hello_deadline, s);
	set_reading(s, true);
	return s;
}

int agent_listen(struct agent *a, const char *hostport, char *err, size_t errlen)
{
	/* HOST:PORT, with [v6]:PORT for IPv6. */
	const char *colon = strrchr(hostport, ':');
	if (!colon || colon == hostport || !colon[1]) {
		text_printf(err, errlen, "--listen '%s': expected HOST:PORT", hostport);
		return -1;
	}
	char *host = g_strndup(hostport, (gsize)(colon - hostport));
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		char *h = g_strndup(host + 1, strlen(host) - 2);
		g_free(host);
		host = h;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *res = NULL;
	int rc = getaddrinfo(host, colon + 1, &hints, &res);
	g_free(host);
	if (rc != 0) {
		text_printf(err, errlen, "--listen '%s': %s", hostport, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		text_printf(err, errlen, "socket: %s", strerror(errno));
		freeaddrinfo(res);
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (res->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 16) != 0) {
		text_printf(err, errlen, "--listen '%s': %s", hostport, strerror(errno));
		close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	a->listen_fd = fd;
	a->listen_watch = g_unix_fd_add(fd, G_IO_IN, on_accept, a);
	return 0;
}

void agent_shutdown(struct agent *a)
{
	while (a->sessions)
		session_close(a->sessions->data);
	if (a->listen_watch)
		g_source_remove(a->listen_watch);
	if (a->listen_fd >= 0)
		close(a->listen_fd);
}
