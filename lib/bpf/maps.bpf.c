/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The maps object: no program, only what common.bpf.h defines (the maps,
 * the .bss). The loader loads it first, so that the maps are made once,
 * without the kernel's BTF (no program to relocate or attach), and the
 * three objects of the jobs reuse them and load side by side. See
 * lib/bpf/README.md.
 */
#define IPP_BPF_MAPS_ONLY 1
#include "common.bpf.h"
