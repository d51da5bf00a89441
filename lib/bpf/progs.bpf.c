/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF object: each job's programs are in a file of their own, built
 * together as one object. libbpf parses the kernel's BTF once per object it
 * loads (10-25 ms of CPU, and the CO-RE candidates of each kernel type it
 * reads), hence one object rather than one per job. The loader
 * (fdid-bpf.c) loads from it only the programs a session asks for, and
 * attaches them job by job, in the order their records must come (args, fd,
 * sched, calls). A program's job is the prefix of its name: args_, sched_
 * or call_; the fd job's programs have none of these.
 * See lib/bpf/README.md.
 */
#include "fdid.bpf.c"
#include "sched.bpf.c"
#include "calls.bpf.c"
#include "args.bpf.c"
