#!/bin/bash
# session 10 (2026-12-02, 15:55-18:55) quiet perf window on integ (bb8c722), run as
#   I=<integ> BEFORE_BUILD=<main at 38467e8> perf/quiet_window.sh quiet-1202g
# (the script was this file's body until it moved to perf/quiet_window.sh; since then it takes the
# folder as an argument, names its temporary limits binary otherwise, and writes the small_ratio
# tables itself, which were made by hand for this window)
exec "$(dirname "$0")/../../quiet_window.sh" quiet-1202g
