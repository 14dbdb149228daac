#!/bin/bash
# One device call that records corpus sessions and brings them back (bench/corpus/README.md):
# bench/corpus/device_call.sh into a scratch folder, then the sessions xz-compressed into
# $OUT/sessions-K.tar parts of at most 15 MB each (the device tool returns at most 8 files of
# 16 MiB), and its log as $OUT/record.log. Same variables as device_call.sh; OUT is where the
# parts go.
set -u
FINAL=${OUT:?set OUT}
SCRATCH=${SCRATCH:-/tmp/corpus-sessions}
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH" "$FINAL"
OUT=$SCRATCH RAW_TAR=${RAW_TAR:-$FINAL/raw.tar} bash bench/corpus/device_call.sh 2>&1 | tee "$FINAL/record.log"
cd "$SCRATCH" || exit 1
xz -T0 -6 ./*.stallscope
tar -cf "$FINAL/raw.tar" raw
part=1 size=0
for f in *.stallscope.xz; do
    bytes=$(stat -c %s "$f")
    if [ $((size + bytes)) -gt 15000000 ] && [ "$size" -gt 0 ]; then
        part=$((part + 1)) size=0
    fi
    tar -rf "$FINAL/sessions-$part.tar" "$f"
    size=$((size + bytes))
done
ls -la "$FINAL"
