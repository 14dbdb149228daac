#!/bin/bash
# One device call: the pairs whose recordings tests/corpus/data keeps, recorded again once each by
# today's recorder (no timing: expected.json has their measured savings), the sessions back in
# $OUT/sessions-K.tar (bench/corpus/device_record.sh). Then, here:
#   mkdir -p /tmp/new && for t in OUT/sessions-*.tar; do tar -C /tmp/new -xf $t; done
#   python3 bench/corpus/compare_recordings.py build/test/app/stallscope /tmp/new
# tells whether the recorder (or the machine) moves the cards: the same analyzer reads both.
# Pairs in the order given by PAIRS, else expected.json's; BUDGET_S as in device_call.sh.
set -u
PAIRS=${PAIRS:-$(python3 -c "
import json
seen = []
for e in json.load(open('tests/corpus/data/expected.json')):
    if e['pair'] not in seen:
        seen.append(e['pair'])
print(' '.join(seen))")}
PAIRS="$PAIRS" RECORD_ONLY="$PAIRS" RECORDINGS=1 BUDGET_S=${BUDGET_S:-300} \
  bash "$(dirname "$0")/device_record.sh"
