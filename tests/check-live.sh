#!/bin/sh
# tests/check-live (the libcheck suites on real tracepoints), started as a
# script: make check starts a program's test after every script's, and this
# one, among the longest, should start first (Makefile.am, TESTS). Its
# arguments and environment (CK_RUN_SUITE, CK_RUN_CASE) go through.
exec "${top_builddir:-.}/tests/check-live" "$@"
