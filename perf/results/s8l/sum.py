#!/usr/bin/env python3
# sum.py (perf/results/s8l): s7l's summary of the same layer A/B files, with s8l's tags
# (ab-base-R.txt, ab-new-R.txt); run it in the folder of those files.
import os, runpy, sys
sys.argv = [sys.argv[0], 'base', 'new', 's8l']
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 's7l', 'sum.py'), run_name='__main__')
