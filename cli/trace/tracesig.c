/* Signal and exit lines of ipcperf trace, as strace -f prints them (tracesig.h). */
#include "config.h"
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include "traceflags.h"
#include "tracesig.h"

/* si_code values any signal may carry (<= 0: sent by a process; SI_KERNEL). */
static const struct tf_name si_any[] = {
	{ (uint64_t)SI_USER, "SI_USER" }, { (uint64_t)SI_KERNEL, "SI_KERNEL" },
	{ (uint64_t)(int64_t)SI_QUEUE, "SI_QUEUE" }, { (uint64_t)(int64_t)SI_TIMER, "SI_TIMER" },
	{ (uint64_t)(int64_t)SI_MESGQ, "SI_MESGQ" }, { (uint64_t)(int64_t)SI_ASYNCIO, "SI_ASYNCIO" },
	{ (uint64_t)(int64_t)SI_SIGIO, "SI_SIGIO" }, { (uint64_t)(int64_t)SI_TKILL, "SI_TKILL" },
	{ (uint64_t)(int64_t)-7, "SI_DETHREAD" }, { (uint64_t)(int64_t)-60, "SI_ASYNCNL" },
};

/* The kernel's si_code values of one signal, from 1 up, named by names[code - 1]. */
struct si_codes {
	int signo;
	const char *const *names;
	size_t n;
};

static const char *const cld[] = { "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED", "CLD_TRAPPED",
				   "CLD_STOPPED", "CLD_CONTINUED" };
static const char *const segv[] = { "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR",
				    "SEGV_ACCADI", "SEGV_ADIDERR", "SEGV_ADIPERR", "SEGV_MTEAERR",
				    "SEGV_MTESERR", "SEGV_CPERR" };
static const char *const bus[] = { "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR",
				   "BUS_MCEERR_AO" };
static const char *const ill[] = { "ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP",
				   "ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK",
				   "ILL_BADIADDR" };
static const char *const fpe[] = { "FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF",
				   "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB",
				   NULL, NULL, NULL, NULL, NULL, "FPE_FLTUNK", "FPE_CONDTRAP" };
static const char *const trap[] = { "TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT",
				    "TRAP_UNK", "TRAP_PERF" };
static const char *const poll[] = { "POLL_IN", "POLL_OUT", "POLL_MSG", "POLL_ERR", "POLL_PRI",
				    "POLL_HUP" };
static const char *const sys[] = { "SYS_SECCOMP", "SYS_USER_DISPATCH" };

#define CODES(sig, tab) { sig, tab, TF_N(tab) }
static const struct si_codes si_codes[] = {
	CODES(SIGCHLD, cld), CODES(SIGSEGV, segv), CODES(SIGBUS, bus), CODES(SIGILL, ill),
	CODES(SIGFPE, fpe), CODES(SIGTRAP, trap), CODES(SIGPOLL, poll), CODES(SIGSYS, sys),
};

/* Return the name of @code for signal @signo, or NULL. */
static const char *code_name(int signo, int code)
{
	for (size_t i = 0; i < TF_N(si_any); i++)
		if ((int)(int64_t)si_any[i].v == code)
			return si_any[i].name;
	for (size_t i = 0; code > 0 && i < TF_N(si_codes); i++)
		if (si_codes[i].signo == signo && (size_t)code <= si_codes[i].n)
			return si_codes[i].names[code - 1];
	return NULL;
}

static void put_addr(FILE *f, const char *name, const void *p)
{
	if (p)
		fprintf(f, ", %s=%p", name, p);
	else
		fprintf(f, ", %s=NULL", name);
}

/*
 * Print the fields of a SIGCHLD from the kernel: who, how it ended or stopped,
 * and its CPU time in ticks.
 */
static void put_child(FILE *f, const siginfo_t *si)
{
	fprintf(f, ", si_pid=%d, si_uid=%u, si_status=", (int)si->si_pid, (unsigned int)si->si_uid);
	if (si->si_code == CLD_EXITED)
		fprintf(f, "%d", si->si_status);
	else
		tf_signal(f, (uint64_t)si->si_status);
	fprintf(f, ", si_utime=%lld, si_stime=%lld", (long long)si->si_utime,
		(long long)si->si_stime);
}

/* Print the fields of a signal sent by a process (si_code <= 0), as they are for its code. */
static void put_sent(FILE *f, const siginfo_t *si)
{
	if (si->si_code == SI_TIMER) {
		fprintf(f, ", si_timerid=%#x, si_overrun=%d", (unsigned int)si->si_timerid,
			si->si_overrun);
	} else {
		fprintf(f, ", si_pid=%d, si_uid=%u", (int)si->si_pid, (unsigned int)si->si_uid);
		if (si->si_code != SI_QUEUE && si->si_code != SI_MESGQ)
			return;
	}
	fprintf(f, ", si_int=%d", si->si_int);
	put_addr(f, "si_ptr", si->si_ptr);
}

/*
 * Print the fields of a signal from the kernel (si_code > 0, or SI_KERNEL), as
 * they are for the signal.
 */
static void put_kernel(FILE *f, int signo, const siginfo_t *si)
{
	switch (signo) {
	case SIGCHLD:
		if (si->si_code > 0)
			put_child(f, si);
		break;
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
		put_addr(f, "si_addr", si->si_addr);
		break;
	case SIGPOLL:
		if (si->si_code > 0)
			fprintf(f, ", si_band=%ld, si_fd=%d", (long)si->si_band, si->si_fd);
		break;
	case SIGSYS:
		if (si->si_code > 0) {
			put_addr(f, "si_call_addr", si->si_call_addr);
			fprintf(f, ", si_syscall=__NR_%s, si_arch=%#x",
				ipcperf_syscall_name(si->si_syscall), si->si_arch);
		}
		break;
	default:
		break;
	}
}

void tracesig_info(FILE *f, const struct ipcperf_signal *ev)
{
	siginfo_t info;
	const siginfo_t *si = &info;
	const char *code;

	_Static_assert(sizeof(info) == sizeof(ev->info), "ipcperf_signal.info is a siginfo_t");
	memcpy(&info, ev->info, sizeof(info));
	code = code_name(ev->signo, si->si_code);

	fputs("{si_signo=", f);
	tf_signal(f, (uint64_t)ev->signo);
	if (code)
		fprintf(f, ", si_code=%s", code);
	else
		fprintf(f, ", si_code=%d", si->si_code);
	if (si->si_errno) {
		const char *e = strerrorname_np(si->si_errno);

		if (e)
			fprintf(f, ", si_errno=%s", e);
		else
			fprintf(f, ", si_errno=%d", si->si_errno);
	}
	if (si->si_code <= 0 && si->si_code != SI_KERNEL)
		put_sent(f, si);
	else
		put_kernel(f, ev->signo, si);
	fputc('}', f);
}

static bool is_stop_signal(int s)
{
	return s == SIGSTOP || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU;
}

void tracesig_lines(FILE *f, const char *leader, const struct ipcperf_signal *ev)
{
	fprintf(f, "%s--- ", leader);
	tf_signal(f, (uint64_t)ev->signo);
	fputc(' ', f);
	tracesig_info(f, ev);
	fputs(" ---\n", f);
	/* Its default action stops the thread's process. */
	if (ev->action != IPCPERF_SIG_DEFAULT || !is_stop_signal(ev->signo))
		return;
	fprintf(f, "%s--- stopped by ", leader);
	tf_signal(f, (uint64_t)ev->signo);
	fputs(" ---\n", f);
}

void tracesig_exit(FILE *f, const char *leader, int status)
{
	if (WIFEXITED(status)) {
		fprintf(f, "%s+++ exited with %d +++\n", leader, WEXITSTATUS(status));
		return;
	}
	fprintf(f, "%s+++ killed by ", leader);
	tf_signal(f, (uint64_t)WTERMSIG(status));
	fputs(WCOREDUMP(status) ? " (core dumped) +++\n" : " +++\n", f);
}
