/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF object: each job's programs, in its own file, built as one
 * object. libbpf parses the kernel's BTF once per object it loads (10-25 ms
 * of CPU, and the CO-RE candidates of each kernel type it reads), so one
 * object, not one per job; the loader (fdid-bpf.c) loads of it only the
 * programs a session asks for, and attaches them job by job, in the order
 * their records must come (args, fd, sched, calls). A program's job is its
 * name's prefix: args_, sched_, call_; the fd job's have none of these.
 * See lib/bpf/README.md.
 */
#include "fdid.bpf.c"
#include "sched.bpf.c"
#include "calls.bpf.c"
#include "args.bpf.c"
