/*
 * report.pdf: the print version of the report (report-print.html) printed
 * by a headless Chromium. The browser runs with a private, temporary
 * profile, no name resolution (the report fetches nothing; this makes
 * sure), in its own process group so that a hang is ended whole, and is
 * killed after a time limit.
 *
 * Page numbers: Chromium 131 and later draw the report's own @page margin
 * boxes ("page 3 of 41"), so its header and footer are turned off; an
 * older one ignores margin boxes, so its own header and footer (title,
 * date, file, page number) are kept.
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The browsers looked for in PATH, in this order. */
static const char *const browsers[] = { "chromium", "chromium-browser", "google-chrome", "google-chrome-stable" };

#define MARGIN_BOXES_SINCE 131

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Runs argv with the environment envp, stdout and stderr into log_path,
 * in a process group of its own, for at most timeout_ms; the whole group
 * is killed at the end (a browser leaves helpers behind when killed).
 * Returns the wait status, or -1 with timed_out set, or -1 with errno when
 * it could not start. */
static int run_bounded(char *const argv[], char *const envp[], const char *log_path, long timeout_ms, bool *timed_out)
{
	*timed_out = false;
	int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log < 0)
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(log);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* Gone with roce-tester (Ctrl-C reaches only the foreground group). */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
		execve(argv[0], argv, envp);
		dprintf(log, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(log);
	setpgid(pid, pid);
	int status = -1;
	for (long waited = 0;; waited += 50) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (waited >= timeout_ms) {
			*timed_out = true;
			kill(-pid, SIGTERM);
			for (int i = 0; i < 40 && waitpid(pid, &status, WNOHANG) == 0; i++)
				sleep_ms(50);
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		sleep_ms(50);
	}
	kill(-pid, SIGKILL);
	return status;
}

/* The browser: ROCE_CHROMIUM, or the first of browsers[] in PATH. */
static gchar *find_browser(char *err, size_t errlen, bool *named)
{
	const char *env = getenv("ROCE_CHROMIUM");
	*named = env && *env;
	if (*named) {
		gchar *p = g_find_program_in_path(env);
		if (!p)
			snprintf(err, errlen, "ROCE_CHROMIUM=%s: no such program", env);
		return p;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(browsers); i++) {
		gchar *p = g_find_program_in_path(browsers[i]);
		if (p)
			return p;
	}
	snprintf(err, errlen,
		 "no headless Chromium to print with (looked for chromium, chromium-browser, google-chrome and "
		 "google-chrome-stable in PATH); on Debian install the package chromium (apt-get install chromium), "
		 "or name a browser with ROCE_CHROMIUM=PATH");
	return NULL;
}

/* The major version from "Chromium 156.0.8078.114 built on Debian ..." or
 * "Google Chrome 120.0.6099.71" (Debian's launcher script may say other
 * things first); 0 when unknown. */
static int browser_major(const char *browser, const char *dir, char *const envp[])
{
	gchar *log = g_build_filename(dir, "version.txt", NULL);
	char *argv[] = { (char *)browser, "--version", NULL };
	bool timed_out;
	int major = 0;
	int st = run_bounded(argv, envp, log, 30000, &timed_out);
	gchar *text = NULL;
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && g_file_get_contents(log, &text, NULL, NULL)) {
		for (const char *p = text; *p && !major; p++) {
			const char *v = !strncmp(p, "Chromium ", 9) ? p + 9 : !strncmp(p, "Chrome ", 7) ? p + 7 : NULL;
			if (v && g_ascii_isdigit(*v))
				major = atoi(v);
		}
	}
	g_free(text);
	g_free(log);
	return major;
}

/* The last line of the browser's output that is not about D-Bus (which a
 * headless browser without a session bus always complains of). */
static void last_words(const char *log, char *buf, size_t n)
{
	gchar *text = NULL;
	buf[0] = '\0';
	if (!g_file_get_contents(log, &text, NULL, NULL))
		return;
	gchar **lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l; l++)
		if (**l && !strstr(*l, "dbus") && !strstr(*l, "DBus"))
			snprintf(buf, n, "%s", g_strstrip(*l));
	g_strfreev(lines);
	g_free(text);
}

static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		GDir *d = g_dir_open(path, 0, NULL);
		const char *name;
		while (d && (name = g_dir_read_name(d))) {
			gchar *child = g_build_filename(path, name, NULL);
			remove_tree(child);
			g_free(child);
		}
		if (d)
			g_dir_close(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static bool is_pdf(const char *path)
{
	char head[5] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && !memcmp(head, "%PDF-", 5);
}

enum report_pdf_status report_print_pdf(const char *html, const char *pdf, unsigned timeout_s, char *err, size_t errlen)
{
	bool named;
	gchar *browser = find_browser(err, errlen, &named);
	if (!browser)
		return named ? REPORT_PDF_FAILED : REPORT_PDF_NO_BROWSER;
	GError *ge = NULL;
	gchar *profile = g_dir_make_tmp("roce-chromium-XXXXXX", &ge);
	if (!profile) {
		snprintf(err, errlen, "a profile folder for %s: %s", browser, ge->message);
		g_error_free(ge);
		g_free(browser);
		return REPORT_PDF_FAILED;
	}
	gchar *abs = g_canonicalize_filename(html, NULL);
	gchar *uri = g_filename_to_uri(abs, NULL, NULL);
	gchar *tmp = g_strconcat(pdf, ".tmp", NULL);
	gchar *out_arg = g_strconcat("--print-to-pdf=", tmp, NULL);
	gchar *profile_arg = g_strconcat("--user-data-dir=", profile, NULL);
	gchar *log = g_build_filename(profile, "browser.log", NULL);
	/* Its crash database and caches go to the temporary profile too, not
	 * to the user's home. */
	gchar **envp = g_get_environ();
	gchar *config = g_build_filename(profile, "config", NULL), *cache = g_build_filename(profile, "cache", NULL);
	envp = g_environ_setenv(envp, "XDG_CONFIG_HOME", config, TRUE);
	envp = g_environ_setenv(envp, "XDG_CACHE_HOME", cache, TRUE);
	g_free(config);
	g_free(cache);
	int major = browser_major(browser, profile, envp);
	GPtrArray *argv = g_ptr_array_new();
	g_ptr_array_add(argv, browser);
	g_ptr_array_add(argv, "--headless");
	g_ptr_array_add(argv, "--disable-gpu");
	/* Chromium's sandbox refuses to run as root. */
	if (geteuid() == 0)
		g_ptr_array_add(argv, "--no-sandbox");
	g_ptr_array_add(argv, "--no-first-run");
	g_ptr_array_add(argv, "--no-default-browser-check");
	g_ptr_array_add(argv, "--disable-extensions");
	g_ptr_array_add(argv, "--disable-sync");
	g_ptr_array_add(argv, "--disable-background-networking");
	g_ptr_array_add(argv, "--disable-component-update");
	g_ptr_array_add(argv, "--disable-crash-reporter");
	g_ptr_array_add(argv, "--disable-breakpad");
	g_ptr_array_add(argv, "--host-resolver-rules=MAP * ~NOTFOUND");
	g_ptr_array_add(argv, profile_arg);
	if (major >= MARGIN_BOXES_SINCE)
		g_ptr_array_add(argv, "--no-pdf-header-footer");
	g_ptr_array_add(argv, out_arg);
	g_ptr_array_add(argv, uri);
	g_ptr_array_add(argv, NULL);

	unlink(tmp);
	bool timed_out;
	int st = run_bounded((char *const *)argv->pdata, envp, log, (long)timeout_s * 1000, &timed_out);
	enum report_pdf_status rc = REPORT_PDF_FAILED;
	char words[512];
	last_words(log, words, sizeof words);
	if (timed_out)
		snprintf(err, errlen, "%s did not print %s within %u s (--pdf-timeout); it was stopped", browser, html,
			 timeout_s);
	else if (st < 0)
		snprintf(err, errlen, "cannot run %s: %s", browser, strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		snprintf(err, errlen, "%s could not print %s (%s %d)%s%s", browser, html,
			 WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			 *words ? ": " : "", words);
	else if (!is_pdf(tmp))
		snprintf(err, errlen, "%s wrote no PDF for %s%s%s", browser, html, *words ? ": " : "", words);
	else if (rename(tmp, pdf) != 0)
		snprintf(err, errlen, "%s: %s", pdf, strerror(errno));
	else
		rc = REPORT_PDF_OK;
	if (rc != REPORT_PDF_OK)
		unlink(tmp);
	remove_tree(profile);
	g_strfreev(envp);
	g_ptr_array_free(argv, TRUE);
	g_free(browser);
	g_free(profile);
	g_free(abs);
	g_free(uri);
	g_free(tmp);
	g_free(out_arg);
	g_free(profile_arg);
	g_free(log);
	return rc;
}
