#!/bin/bash
# c2c_nt.sh N: alternate c2c with memcpy and with streaming stores for the writer.
uptime
for i in $(seq 1 $1); do echo "$(date +%T.%N | cut -c1-12) $(/tmp/s17b_c2c) | $(/tmp/s17b_c2c nt)"; done
uptime
