/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/flows/: IPC flows. Each read matched to the writes it drained
 * (flows.c), each flow's place along its chain and the bottlenecks
 * (chains.c), and an event loop's waits put on the fds that became ready
 * (waits.c). This folder may call stats/ (the fd table of a stats object),
 * fd/ (what the fds are, once settled), pipeline/ (the session it attaches
 * to) and the ground floor (lib/).
 *
 * The flows object (struct ipcperf_flows) is public and opaque: the rest of
 * the library does not call into this folder.
 */
#ifndef IPCPERF_FLOWS_H
#define IPCPERF_FLOWS_H

#endif /* IPCPERF_FLOWS_H */
