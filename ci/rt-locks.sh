#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rt-locks.sh TREE: on a PREEMPT_RT tree, the per-cpu page lists and the
# memcg stock must be protected by local locks, never by disabling
# interrupts: on RT a local lock is a per-CPU sleeping lock, and code
# that disables interrupts around the lists or the stock both excludes
# nothing that takes the lock and runs sleeping spinlocks with
# interrupts off.
#
# Checked in the tree's sources, function by function:
#   - no function that touches a pcp list (pcp->lists[], pcp->count) or
#     a memcg stock (memcg_stock through this_cpu_ptr(), per_cpu() or
#     per_cpu_ptr()) disables interrupts (local_irq_save() or
#     local_irq_disable()) or preemption (preempt_disable() or
#     get_cpu()): on RT either would run the sleeping locks those
#     functions take in atomic context;
#   - every function that takes this CPU's memcg stock
#     (this_cpu_ptr(&memcg_stock)) takes the stock's local lock:
#     upstream's memcg_stock.stock_lock (0312), or memcg_stock.lock, the
#     RT queue's own form of it, before the RT flavour replaces it;
#   - the pcp lists have their local lock: pagesets.lock (0122), or the
#     RT queue's pa_lock before the RT flavour reverts it, is taken, and
#     every function that takes it also releases it.
# The RT queue's names are accepted so that every position of the RT
# flavour can be checked (ci/gates.sh's rt-locks gate walks them).
# The helpers that are given a pcp or a stock by their caller run under
# the caller's lock; the remote readers (__drain_all_pages(),
# drain_all_stock()) read other CPUs' lists and stocks without a lock by
# design.  Prints one line per problem, "FILE: FUNCTION: problem", and
# exits 1 when there is one; prints what it checked and exits 0
# otherwise.
#
# A smoke test of the sources, not a proof: it cannot see lock order
# (an objcg put under the stock lock, whose release takes the lock
# again, is what lockdep on the rt kernel reports), a helper of another
# file that disables interrupts, or a caller that holds them off around
# a function checked here.  The rt scenario's lockdep and
# DEBUG_ATOMIC_SLEEP boots are the check of those.

. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: rt-locks.sh TREE"
tree=$1
for f in mm/page_alloc.c mm/memcontrol.c; do
	[ -f "$tree/$f" ] || die "$tree/$f missing: is $tree a kernel tree?"
done

# functions FILE: "NAME<TAB>BODY-LINE" for every line of every function
# body of a C file (a function starts at a line that begins with an
# identifier and has "(", ends at a line "}").
functions() {
	awk '
		/^[A-Za-z_].*\(/ && !fn {
			s = $0
			sub(/\(.*/, "", s)
			n = split(s, w, /[ \t*]+/)
			cand = w[n]
		}
		/^\{/ && cand { fn = cand; next }
		/^\}/ && fn { fn = ""; cand = ""; next }
		fn { print fn "\t" $0 }
		/;[ \t]*$/ && !fn { cand = "" }
	' "$1"
}

# Each file's functions, split once; the bodies of those that name a
# pcp list, the stock or one of their locks (every function the checks
# below look into) each in a file of its own.
fdir=$(mktemp -d)
trap 'rm -rf "$fdir"' EXIT
for f in mm/page_alloc.c mm/memcontrol.c; do
	functions "$tree/$f" >"$fdir/${f//\//_}"
	mkdir "$fdir/${f//\//_}.d"
	awk -F'\t' -v d="$fdir/${f//\//_}.d" '
		{ l = $0; sub(/^[^\t]*\t/, "", l) }
		NR == FNR { if (l ~ /pcp->(lists\[|count)|memcg_stock|pagesets\.lock|pa_lock/) want[$1] = 1; next }
		$1 in want { print l > (d "/" $1) }' "$fdir/${f//\//_}" "$fdir/${f//\//_}"
done

bad=0
checked=0
# fns FILE REGEX: the functions of FILE with a line matching REGEX.
fns() {
	RE=$2 awk -F'\t' '{ l = $0; sub(/^[^\t]*\t/, "", l) } l ~ ENVIRON["RE"] { print $1 }' "$fdir/${1//\//_}" |
		awk '!seen[$0]++'
}
# matching FILE REGEX FUNCTION...: those of the FUNCTIONs of FILE whose
# body has a line matching REGEX (one grep for all of them).
matching() {
	local d=$fdir/${1//\//_}.d re=$2
	shift 2
	[ $# -gt 0 ] || return 0
	(cd "$d" && grep -lE -- "$re" "$@") || :
}
# irqs_off FILE USES-REGEX WHAT
irqs_off() {
	local fn
	local -a all
	mapfile -t all < <(fns "$1" "$2")
	checked=$((checked + ${#all[@]}))
	while IFS= read -r fn; do
		echo "$1: $fn: disables interrupts around $3 (local_irq_save/disable)"
		bad=1
	done < <(matching "$1" 'local_irq_(save|disable)\(' "${all[@]}")
	while IFS= read -r fn; do
		echo "$1: $fn: disables preemption around $3 (preempt_disable/get_cpu)"
		bad=1
	done < <(matching "$1" '(^|[^_a-z])(preempt_disable|get_cpu)\(' "${all[@]}")
}
# The helpers that take this CPU's stock themselves but are called only
# with the stock lock held, by the lock's own users (upstream's
# __refill_stock(), 0311: refill_stock() and drain_obj_stock()).
UNDER_CALLERS_LOCK="__refill_stock"
# locked FILE USES-REGEX LOCK-REGEX WHAT: each function matching USES
# takes a lock matching LOCK-REGEX.
locked() {
	local fn
	local -a all=() took
	while IFS= read -r fn; do
		[[ " $UNDER_CALLERS_LOCK " == *" $fn "* ]] || all+=("$fn")
	done < <(fns "$1" "$2")
	mapfile -t took < <(matching "$1" "local_lock(_irq|_irqsave)?\\(&($3)[,)]" "${all[@]}")
	for fn in "${all[@]}"; do
		[[ " ${took[*]} " == *" $fn "* ]] && continue
		echo "$1: $fn: takes $4 without its local lock"
		bad=1
	done
}

irqs_off mm/page_alloc.c 'pcp->lists\[|pcp->count' "the pcp lists"
irqs_off mm/memcontrol.c 'memcg_stock[,)]' "the memcg stock"
# The stock's lock: upstream's, or the RT queue's (0207) before 0312.
stock_lock='memcg_stock\.stock_lock'
grep -qF 'local_lock_irqsave(&memcg_stock.lock,' "$tree/mm/memcontrol.c" &&
	stock_lock='memcg_stock\.lock'
locked mm/memcontrol.c 'this_cpu_ptr\(&memcg_stock\)' "$stock_lock" "this CPU's memcg stock"
# The pcp lists' lock: upstream's, or the RT queue's (0203) before its
# revert.
pcp_lock='pagesets\.lock'
grep -q '^static DEFINE_PER_CPU(struct pa_lock, pa_lock)' "$tree/mm/page_alloc.c" &&
	pcp_lock='pa_lock\.l'
takers=$(fns mm/page_alloc.c "local_lock(_irq|_irqsave)?\\(&${pcp_lock}[,)]" | wc -l)
if [ "$takers" -eq 0 ]; then
	echo "mm/page_alloc.c: no function takes ${pcp_lock//\\/}: the pcp lists have no local lock"
	bad=1
fi
mapfile -t takers_fns < <(fns mm/page_alloc.c "local_lock(_irq|_irqsave)?\\(&${pcp_lock}[,)]")
mapfile -t releasers < <(matching mm/page_alloc.c "local_unlock(_irq|_irqrestore)?\\(&${pcp_lock}[,)]" "${takers_fns[@]}")
for fn in "${takers_fns[@]}"; do
	[[ " ${releasers[*]} " == *" $fn "* ]] && continue
	echo "mm/page_alloc.c: $fn: takes ${pcp_lock//\\/} and never releases it"
	bad=1
done

[ "$bad" = 0 ] || exit 1
echo "$checked functions on the pcp lists and the memcg stock, none with interrupts or preemption disabled; $takers take ${pcp_lock//\\/}; this CPU's stock always under ${stock_lock//\\/}"
