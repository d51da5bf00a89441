#!/bin/sh
# tests/check-unit, started as a script: see tests/check-live.sh.
. "${top_srcdir:-.}/tests/check-live.sh"
