/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sys_enter/sys_exit pairing per thread. A thread is in at most one syscall
 * at a time, so the state is one slot per tid in an open-addressing table.
 * Halves that find no partner are counted, never passed on: they would
 * poison latency statistics (doc/accuracy.md, rule 4).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "internal.h"
#include "syscalls.h"
#include "pipeline/pair.h"

struct slot {
	uint32_t key;		/* tid + 1; 0: empty (tid 0 is the idle task, a valid tid) */
	pid_t tid;
	bool in_call;
	bool off_cpu;		/* switched out right now */
	bool seeded;		/* entered before the capture (from /proc) */
	bool preempted;		/* ... while still runnable */
	int nr;
	pid_t pid;
	const struct ipp_scdesc *sc;
	unsigned int nr_args;
	unsigned int switches;
	uint64_t start;
	uint64_t off_since;
	uint64_t off_ns;
	uint64_t blocked_ns;
	uint64_t args[6];
};

struct ipp_pairer {
	struct slot *slots;
	size_t cap;		/* power of two */
	size_t used;
	uint64_t unpaired_enter;
	uint64_t unpaired_exit;
};

struct ipp_pairer *ipp_pairer__new(void)
{
	struct ipp_pairer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cap = 256;
	p->slots = calloc(p->cap, sizeof(*p->slots));
	if (!p->slots) {
		free(p);
		return NULL;
	}
	return p;
}

void ipp_pairer__delete(struct ipp_pairer *p)
{
	if (p)
		ipp_free_all(p->slots, p);
}

static uint32_t key_of(pid_t tid)
{
	return (uint32_t)tid + 1;
}

static size_t hash_key(uint32_t key, size_t cap)
{
	return (key * 2654435761u) & (cap - 1);
}

static inline struct slot *find(struct slot *slots, size_t cap, pid_t tid, bool *found)
{
	uint32_t key = key_of(tid);
	size_t i = hash_key(key, cap);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	*found = slots[i].key == key;
	return &slots[i];
}

static int grow(struct ipp_pairer *p)
{
	size_t cap = p->cap * 2;
	struct slot *slots = calloc(cap, sizeof(*slots));
	bool found;

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i].key)
			*find(slots, cap, p->slots[i].tid, &found) = p->slots[i];
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

/* Take the empty slot @s (where find() stopped) for @tid. */
static struct slot *new_slot(struct ipp_pairer *p, struct slot *s, pid_t tid)
{
	memset(s, 0, sizeof(*s));
	s->key = key_of(tid);
	s->tid = tid;
	p->used++;
	return s;
}

/* Return the slot of @tid, created when @create, or NULL when it is absent or memory ran out. */
static inline __attribute__((always_inline)) struct slot *lookup(struct ipp_pairer *p, pid_t tid,
								  bool create)
{
	bool found;
	struct slot *s;

	if (create && (p->used + 1) * 4 > p->cap * 3 && grow(p) < 0)
		return NULL;
	s = find(p->slots, p->cap, tid, &found);
	if (found)
		return s;
	if (!create)
		return NULL;
	return new_slot(p, s, tid);
}

/*
 * Whether an exit of call @nr that returned @ret is a half without a
 * partner by design, not by loss: the child's return from clone/fork (it
 * never entered), the exit of the exec during which the events were
 * switched on (enable_on_exec), and exit/exit_group, which never return.
 * strace -c does not count them either.
 */
static bool orphan_exit_expected(int nr, int64_t ret)
{
	if (ret != 0)
		return false;
	switch (nr) {
	case __NR_clone:
	case __NR_clone3:
#ifdef __NR_fork
	case __NR_fork:
#endif
#ifdef __NR_vfork
	case __NR_vfork:
#endif
	case __NR_execve:
	case __NR_execveat:
		return true;
	default:
		return false;
	}
}

static bool never_returns(int nr)
{
	return nr == __NR_exit || nr == __NR_exit_group;
}

void ipp_pairer__enter(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		       const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		       unsigned int nr_args)
{
	struct slot *s = lookup(p, tid, true);

	if (!s) {
		p->unpaired_enter++;
		return;
	}
	if (s->in_call && !never_returns(s->nr))
		p->unpaired_enter++;	/* its exit never came (lost) */
	s->in_call = true;
	s->seeded = false;
	s->pid = pid;
	s->nr = nr;
	s->sc = sc;
	s->start = time;
	s->switches = 0;
	s->off_ns = 0;
	s->blocked_ns = 0;
	s->nr_args = nr_args > 6 ? 6 : nr_args;
	for (unsigned int i = 0; i < 6; i++)
		s->args[i] = i < s->nr_args ? args[i] : 0;
}

bool ipp_pairer__exit(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid, int cpu,
		      int nr, int64_t ret, struct ipcperf_syscall *out)
{
	struct slot *s = lookup(p, tid, false);
	const struct ipp_scdesc *sc;

	if (!s || !s->in_call) {
		if (orphan_exit_expected(nr, ret))
			return false;
		ipp_debug("unpaired sys_exit: tid %d nr %d ret %lld at %llu\n", (int)tid, nr,
			  (long long)ret, (unsigned long long)time);
		p->unpaired_exit++;
		return false;
	}
	s->in_call = false;
	/*
	 * rt_sigreturn restores registers that say "no syscall": its exit comes
	 * with nr -1 (raw_syscalls). It is the call this thread entered.
	 */
	if (nr == -1 && (s->nr == __NR_rt_sigreturn
#ifdef __NR_sigreturn
			 || s->nr == __NR_sigreturn
#endif
			 ))
		nr = s->nr;
	if (s->nr != nr || time < s->start) {
		p->unpaired_enter++;
		p->unpaired_exit++;
		return false;
	}
	sc = s->sc;
	/*
	 * Every field is set below (no memset: for this 150-byte struct gcc
	 * emits rep stos, which took half of this function's time).
	 */
	out->start_ns = s->start;
	out->end_ns = time;
	out->pid = pid;
	out->tid = tid;
	out->cpu = cpu;
	out->nr = nr;
	out->name = sc ? sc->name : ipp_syscall_name_any(nr);
	out->cls = sc ? sc->cls : IPCPERF_SC_OTHER;
	out->fd = sc && sc->fd_arg >= 0 && (unsigned int)sc->fd_arg < s->nr_args ?
		  (int)s->args[(int)sc->fd_arg] : -1;
	out->out_fd = sc && sc->out_arg >= 0 && (unsigned int)sc->out_arg < s->nr_args ?
		      (int)s->args[(int)sc->out_arg] : -1;
	out->count = sc && sc->count_arg >= 0 && (unsigned int)sc->count_arg < s->nr_args ?
		     s->args[(int)sc->count_arg] : 0;
	out->ret = ret;
	memcpy(out->args, s->args, sizeof(out->args));
	out->nr_args = s->nr_args;
	out->ret_is_msgs = sc && sc->ret_is_msgs;
	out->switches = s->switches;
	out->off_cpu_ns = s->off_ns;
	out->started_before_capture = false;
	if (s->seeded) {
		/* Real result, unknown start: counted as unpaired for latency purposes. */
		out->started_before_capture = true;
		p->unpaired_exit++;
	}
	out->blocked_ns = s->blocked_ns;
	out->nr_mem = 0;
	out->mem = NULL;
	out->never_returns = false;
	return true;
}

void ipp_pairer__seed(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		      const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		      unsigned int nr_args)
{
	struct slot *s;

	ipp_pairer__enter(p, time, pid, tid, sc, nr, args, nr_args);
	s = lookup(p, tid, false);
	if (s)
		s->seeded = true;
}

void ipp_pairer__switch(struct ipp_pairer *p, uint64_t time, pid_t tid, bool out,
			bool preempted)
{
	struct slot *s = lookup(p, tid, false);

	if (!s || !s->in_call) {
		if (s)
			s->off_cpu = out;
		return;
	}
	if (out) {
		if (!s->off_cpu)
			s->switches++;
		s->off_cpu = true;
		s->preempted = preempted;
		s->off_since = time;
	} else if (s->off_cpu) {
		/* Switched out before this call began (missed record): count from the call's start. */
		uint64_t d = time - (s->off_since > s->start ? s->off_since : s->start);

		s->off_cpu = false;
		s->off_ns += d;
		if (!s->preempted)
			s->blocked_ns += d;
	}
}

void ipp_pairer__thread_exit(struct ipp_pairer *p, pid_t tid)
{
	struct slot *s = lookup(p, tid, false);
	size_t i, j;

	if (!s)
		return;
	if (s->in_call && !never_returns(s->nr))
		p->unpaired_enter++;
	/* Delete with backward shift so that probe chains stay intact. */
	i = (size_t)(s - p->slots);
	s->key = 0;
	p->used--;
	for (j = (i + 1) & (p->cap - 1); p->slots[j].key; j = (j + 1) & (p->cap - 1)) {
		size_t home = hash_key(p->slots[j].key, p->cap);
		/* Move j into the hole at i when its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			p->slots[i] = p->slots[j];
			p->slots[j].key = 0;
			i = j;
		}
	}
}

void ipp_pairer__flush(struct ipp_pairer *p)
{
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i].key && p->slots[i].in_call) {
			p->slots[i].in_call = false;
			p->unpaired_enter++;
		}
}

void ipp_pairer__add_unpaired_enter(struct ipp_pairer *p, uint64_t n)
{
	p->unpaired_enter += n;
}

uint64_t ipp_pairer__unpaired_enter(const struct ipp_pairer *p)
{
	return p->unpaired_enter;
}

uint64_t ipp_pairer__unpaired_exit(const struct ipp_pairer *p)
{
	return p->unpaired_exit;
}
