#!/bin/sh
# A libcheck runner (tests/check-live, tests/check-unit: this script's name
# without .sh), started as a script: make check starts a program's test
# after every script's, and these two, among the longest, should start
# first (Makefile.am, TESTS). Arguments and environment (CK_RUN_SUITE,
# CK_RUN_CASE) go through.
exec "${top_builddir:-.}/tests/$(basename "$0" .sh)" "$@"
