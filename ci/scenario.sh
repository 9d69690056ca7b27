# SPDX-License-Identifier: GPL-2.0
# Look up a scenario of configs/scenarios.  Sourced after lib.sh.
#   scenario_load NAME  sets SC_NAME SC_FRAGMENTS (array) SC_KEY SC_TIER
#                       SC_TIMEOUT SC_MACHINE (array) SC_ARGS, or dies
#                       naming the known ones.
#   scenario_names [TIER]  lists the scenarios (of one tier).

SCENARIOS=$TOP/configs/scenarios
# What a scenario's machine column may add to the guest (ci/boot.sh).
SC_MACHINE_FEATURES="dimm"

scenario_names() {
	awk -v t="${1:-}" '!/^#/ && NF >= 5 && (t == "" || $3 == t || (t == "full")) { print $1 }' \
		"$SCENARIOS"
}

scenario_load() {
	local line f
	line=$(awk -v n="$1" '!/^#/ && $1 == n' "$SCENARIOS")
	[ -n "$line" ] ||
		die "unknown scenario '$1'; known: $(scenario_names | tr '\n' ' ')"
	local m
	read -r SC_NAME f SC_TIER SC_TIMEOUT m SC_ARGS <<<"$line"
	[ "$SC_ARGS" = - ] && SC_ARGS=
	SC_MACHINE=()
	[ "$m" = - ] || IFS=, read -r -a SC_MACHINE <<<"$m"
	for m in "${SC_MACHINE[@]}"; do
		[[ " $SC_MACHINE_FEATURES " == *" $m "* ]] ||
			die "scenario $SC_NAME asks for machine feature '$m'; known: $SC_MACHINE_FEATURES"
	done
	IFS=, read -r -a SC_FRAGMENTS <<<"$f"
	for f in "${SC_FRAGMENTS[@]}"; do
		[ -f "$TOP/configs/$f.config" ] ||
			die "scenario $SC_NAME names configs/$f.config, which does not exist"
	done
	SC_KEY=$(IFS=+; echo "${SC_FRAGMENTS[*]}")
}
