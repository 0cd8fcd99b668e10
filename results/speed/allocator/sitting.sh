#!/bin/bash
# Quiet sitting: allocator A/B (tasks, speed lm, speed nmt) and the dx route A/B (speed lm, binary before/after).
set -e
cd /work/main
S=/work/sitting/alloc
OLD=$S/bin_before_dx/speed
NEW=build/bin/speed
L='--set cells=["lstm","gru","atr","lrn"] --set threads=[1,2] --quiet'
log() { echo "$(date -u +%H:%M:%S) $*" >> $S/log; }
log start
for r in 1 2; do
  if [ $r = 1 ]; then order="glibc old new"; else order="new old glibc"; fi
  for x in $order; do
    case $x in
      glibc) log "lm glibc_$r"; TWIN_MALLOC=glibc $NEW experiments/speed/lm.json $L --set out=$S/lm_glibc_$r > /dev/null ;;
      old)   log "lm olddx_$r"; $OLD experiments/speed/lm.json $L --set out=$S/lm_olddx_$r > /dev/null ;;
      new)   log "lm twin_$r";  $NEW experiments/speed/lm.json $L --set out=$S/lm_twin_$r > /dev/null ;;
    esac
  done
done
log "nmt twin_1"; $NEW nmt experiments/nmt/atr.json --cells atr,gru,lstm,lrn --steps 15 --sentences 100 --threads 2 --out $S/nmt_twin_1 > /dev/null 2>&1
log "nmt glibc_1"; TWIN_MALLOC=glibc $NEW nmt experiments/nmt/atr.json --cells atr,gru,lstm,lrn --steps 15 --sentences 100 --threads 2 --out $S/nmt_glibc_1 > /dev/null 2>&1
log "nmt twin_2"; $NEW nmt experiments/nmt/atr.json --cells lrn,lstm,gru,atr --steps 15 --sentences 100 --threads 2 --out $S/nmt_twin_2 > /dev/null 2>&1
log "tasks"
/usr/bin/python3 tools/ab_env.py --a TWIN_MALLOC=glibc --b TWIN_MALLOC=twin --commands results/speed/allocator/commands.txt --rounds 2 --out $S/tasks --work /work/sitting/alloc > $S/tasks.out 2>&1
log done
