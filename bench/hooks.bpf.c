/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF floor of bench/overhead: two programs that do nothing, on the
 * BTF tracepoints every syscall passes (sys_enter, sys_exit), as ipcperf's
 * are. What they cost is what any tracer that hooks the syscalls there pays
 * on each call of each process, before its first instruction: the
 * tracepoint's slow path and the BPF dispatch. Loaded by bench/hooks.c.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int empty_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int empty_exit(void *ctx)
{
	return 0;
}
