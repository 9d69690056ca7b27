#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava.sh: LAVA jobs for the scenarios, the way CIP and KernelCI boot
# their 5.10 kernels in LAVA labs (ci/lava/*.yaml.in, templates).
#
#   lava.sh render SCENARIO [DEVICE_TYPE]
#       write $BUILD/lava/<scenario>-<device type>.yaml and print its
#       path: DEVICE_TYPE qemu (default) boots on a QEMU device the way
#       ci/boot.sh does (ci/lava/qemu.yaml.in), any other is a lab's board
#       booted by U-Boot over TFTP (ci/lava/uboot.yaml.in, which needs
#       LAVA_DTB_URL).  The kernel and initramfs are the scenario's build,
#       at LAVA_KERNEL_URL and LAVA_RAMDISK_URL when given (a pipeline's
#       artifacts), else as file:// URLs of this machine.  A QEMU job
#       gives the guest ci/boot.sh's two disks (ext4 and swap), gzipped
#       images at LAVA_DATA_URL and LAVA_SWAP_URL, else made once in
#       $BUILD/lava/disks.  A board has none: memcg_reclaim_mixed skips
#       there and says so (kselftest_cgroup, which needs the swap, is
#       booted by the -ksft scenarios only, which have no LAVA job).
#   lava.sh disks DIR
#       write the two disk images, gzipped, into DIR (a pipeline's
#       artifacts): data.img.gz and swap.img.gz, about 1.5 MB in all.
#   lava.sh validate FILE...
#       check job files against LAVA's own schema (Debian's lava-common),
#       naming each file that fails and why.
#   lava.sh check
#       render a job for every booted scenario of `make check` whose
#       kernel is built (but those that need a machine feature the
#       templates do not give: memhp's DIMM, the -ksft boots' icount),
#       and one board job (arm64), and validate them all (make check).
#   lava.sh run FILE
#       run a QEMU job here with Debian's lava-dispatcher (lava-run), on a
#       device dictionary rendered from lava-server's own qemu device type
#       (fetched once with apt-get download into $CACHE_DIR/lava-server)
#       and the job's context; fails unless LAVA records the runner's
#       test cases and none failed (make check-full).
#   lava.sh submit FILE
#       submit the job to the lab at LAVA_URL with LAVA_TOKEN (lavacli),
#       wait for it and fail unless every test case passed; with no
#       LAVA_URL it says that no lab is configured and does nothing.
#
# Environment: LAVA_URL (e.g. https://lava.ciplatform.org), LAVA_USER
# and LAVA_TOKEN (the lab account's API token), LAVA_KERNEL_URL,
# LAVA_RAMDISK_URL, LAVA_DATA_URL, LAVA_SWAP_URL, LAVA_DTB_URL,
# LAVA_DEVICE_TYPE (for check's board job; default
# r8a774a1-hihope-rzg2m-ex).

. "$(dirname "$0")/lib.sh"
. "$TOP/ci/scenario.sh"

PYTHON=/usr/bin/python3
LAVA_SCHEMA=/usr/lib/python3/dist-packages/lava_common/schemas/__init__.py
out=$BUILD/lava

# disks DIR: the guest's disks (ci/lib.sh), gzipped for a lab to fetch.
disks() {
	local dir=$1 f
	mkdir -p "$dir"
	guest_disks "$dir"
	for f in data swap; do
		gzip -n -f "$dir/$f.img" || die "gzip failed on $dir/$f.img"
	done
	echo "$dir"
}

# render SCENARIO DEVICE_TYPE
render() {
	local sc=$1 dev=${2:-qemu} tmpl key value kernel='' initrd='' cmdline='' machine='' cpu=''
	local timeout=3600 file qarch blk='' local_disks=$out/disks
	scenario_load "$sc"
	[ "$SC_TIMEOUT" != - ] || die "scenario $sc is compiled only: no job to render"
	[ ${#SC_MACHINE[@]} -eq 0 ] ||
		die "scenario $sc needs machine features (${SC_MACHINE[*]}) that the LAVA templates do not give"
	while IFS='=' read -r key value; do
		case $key in
		kernel) kernel=$value ;; initrd) initrd=$value ;;
		cmdline) cmdline=$value ;; machine) machine=$value ;;
		cpu) cpu=$value ;; timeout) timeout=$value ;;
		blk) blk=$value ;;
		esac
	done < <(BOOT_DESCRIBE=1 "$TOP/ci/boot.sh" "$sc")
	[ -n "$kernel" ] || die "ci/boot.sh described no kernel for $sc"
	if [ "$dev" = qemu ]; then
		tmpl=$TOP/ci/lava/qemu.yaml.in
	else
		tmpl=$TOP/ci/lava/uboot.yaml.in
		[ -n "${LAVA_DTB_URL:-}" ] ||
			die "device type $dev: LAVA_DTB_URL is not set (the board's device tree)"
	fi
	case $SC_ARCH in
	x86) qarch=amd64 ;;
	arm64) qarch=arm64 ;;
	*) die "no LAVA job for $SC_ARCH" ;;
	esac
	mkdir -p "$out"
	# This machine's disk images, unless the job names a pipeline's.
	if [ "$dev" = qemu ] && { [ -z "${LAVA_DATA_URL:-}" ] || [ -z "${LAVA_SWAP_URL:-}" ]; } &&
	   { [ ! -f "$local_disks/data.img.gz" ] || [ ! -f "$local_disks/swap.img.gz" ]; }; then
		disks "$local_disks" >/dev/null
	fi
	file=$out/$sc-$dev.yaml
	sed -e "s|@SCENARIO@|$sc|g" -e "s|@TREE@|$TR_NAME|g" -e "s|@ARCH@|$SC_ARCH|g" \
	    -e "s|@DEVICE_TYPE@|$dev|g" -e "s|@QEMU_ARCH@|$qarch|g" \
	    -e "s|@QEMU_MACHINE@|$machine|g" -e "s|@QEMU_CPU@|$cpu|g" \
	    -e "s|@CMDLINE@|$cmdline|g" \
	    -e "s|@KERNEL_URL@|${LAVA_KERNEL_URL:-file://$kernel}|g" \
	    -e "s|@RAMDISK_URL@|${LAVA_RAMDISK_URL:-file://$initrd}|g" \
	    -e "s|@DTB_URL@|${LAVA_DTB_URL:-}|g" -e "s|@BLK@|$blk|g" \
	    -e "s|@DATA_URL@|${LAVA_DATA_URL:-file://$local_disks/data.img.gz}|g" \
	    -e "s|@SWAP_URL@|${LAVA_SWAP_URL:-file://$local_disks/swap.img.gz}|g" \
	    -e "s|@TEST_MINUTES@|$(( (timeout + 59) / 60 ))|g" \
	    -e "s|@JOB_MINUTES@|$(( (timeout + 59) / 60 + 15 ))|g" \
	    "$tmpl" >"$file.part"
	! grep -n '@[A-Z_]*@' "$file.part" >&2 ||
		die "$tmpl: a placeholder above has no value"
	mv "$file.part" "$file"
	echo "$file"
}

validate() {
	[ -f "$LAVA_SCHEMA" ] ||
		die "LAVA's schema not found ($LAVA_SCHEMA): install it with 'apt-get install lava-common' (or run 'make deps' as root)"
	[ $# -gt 0 ] || die "usage: lava.sh validate FILE..."
	"$PYTHON" - "$@" <<'EOF'
import sys
import yaml
from lava_common.schemas import validate

bad = 0
for name in sys.argv[1:]:
    try:
        with open(name) as f:
            job = yaml.safe_load(f)
        if not isinstance(job, dict):
            raise ValueError("not a LAVA job (a YAML mapping)")
        validate(job, strict=True)
        print("%s: valid" % name)
    except Exception as e:  # yaml, voluptuous and I/O errors alike
        print("%s: invalid: %s" % (name, str(e).replace("\n", " ")), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
EOF
}

check() {
	local sc files=() f
	for sc in $(scenario_names check); do
		scenario_load "$sc"
		[ "$SC_TIMEOUT" != - ] && [ ${#SC_MACHINE[@]} -eq 0 ] || continue
		BOOT_DESCRIBE=1 "$TOP/ci/boot.sh" "$sc" >/dev/null 2>&1 || {
			msg "$sc: not built, no job"; continue; }
		files+=("$(render "$sc" qemu)")
	done
	# One board job, to keep the U-Boot template valid: on the arm64
	# kernel that is built (make check builds arm64-lockdep's).
	if sc=$(scenario_built arm64 arm64-lockdep arm64-debug); then
		f=$(LAVA_DTB_URL=${LAVA_DTB_URL:-file:///board.dtb} \
		    render "$sc" "${LAVA_DEVICE_TYPE:-r8a774a1-hihope-rzg2m-ex}")
		files+=("$f")
	fi
	[ ${#files[@]} -gt 0 ] || die "no scenario is built: nothing to render (make build first)"
	validate "${files[@]}"
}

# lava-server's device-type templates, from Debian's package (not
# installed: only its templates are needed to render a device).
device_types() {
	local dir=$CACHE_DIR/lava-server deb
	if [ ! -f "$dir/device-types/qemu.jinja2" ]; then
		mkdir -p "$dir"
		(cd "$dir" && apt-get download lava-server >download.log 2>&1) ||
			die "apt-get download lava-server failed (log: $dir/download.log)"
		deb=$(ls "$dir"/lava-server_*.deb | head -n 1)
		rm -rf "$dir/x"
		dpkg-deb -x "$deb" "$dir/x"
		rm -rf "$dir/device-types"
		mv "$dir/x/usr/share/lava-server/device-types" "$dir/device-types"
		rm -rf "$dir/x" "$deb"
	fi
	echo "$dir/device-types"
}

run() {
	local file=$1 name dir types log cases failed
	[ -f "$file" ] || die "no job file $file"
	need lava-run lava-dispatcher
	validate "$file" >/dev/null
	grep -q '^device_type: qemu$' "$file" || die "$file: lava.sh run takes QEMU jobs only"
	types=$(device_types)
	name=$(basename "$file" .yaml)
	dir=$out/run-$name
	rm -rf "$dir"
	mkdir -p "$dir/output"
	"$PYTHON" - "$file" "$types" "$dir/device.yaml" <<'EOF'
import sys
import jinja2
import yaml

job = yaml.safe_load(open(sys.argv[1]))
env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[2]),
                         trim_blocks=True, autoescape=False)
device = env.from_string("{% extends 'qemu.jinja2' %}\n")
open(sys.argv[3], "w").write(device.render(**job.get("context", {})))
EOF
	log=$dir/lava-run.log
	lava-run --device "$dir/device.yaml" --job-id 1 --output-dir "$dir/output" "$file" \
		>"$log" 2>&1 || die "lava-run failed on $file (log: $log)"
	cases=$(grep -c '"lvl": "results".*"definition": "mm510-' "$log" || :)
	failed=$(grep '"lvl": "results".*"definition": "mm510-' "$log" | grep -c '"result": "fail"' || :)
	[ "$cases" -gt 0 ] || die "$file: LAVA recorded no test case of the runner (log: $log)"
	grep -q '"case": "job", "definition": "lava", "result": "pass"' "$log" ||
		die "$file: the LAVA job did not pass (log: $log)"
	[ "$failed" -eq 0 ] || die "$file: $failed of $cases test cases failed (log: $log)"
	msg "$file: $cases test cases passed under lava-run (log: $log)"
}

submit() {
	local file=$1 id result
	[ -f "$file" ] || die "no job file $file"
	if [ -z "${LAVA_URL:-}" ]; then
		msg "no LAVA lab configured (LAVA_URL, LAVA_USER, LAVA_TOKEN): $file not submitted"
		return 0
	fi
	[ -n "${LAVA_TOKEN:-}" ] || die "LAVA_URL is set but LAVA_TOKEN is not: the lab needs its API token"
	[ -n "${LAVA_USER:-}" ] || die "LAVA_URL is set but LAVA_USER is not: the token's user"
	need lavacli lavacli
	validate "$file" >/dev/null
	local lava=(lavacli --uri "${LAVA_URL%/}/RPC2/" --username "$LAVA_USER" --token "$LAVA_TOKEN")
	# A lab that does not answer is named, not waited for.
	"${lava[@]}" system version >/dev/null 2>&1 ||
		die "LAVA lab $LAVA_URL does not answer (lavacli system version failed)"
	id=$("${lava[@]}" jobs submit "$file") || die "$LAVA_URL refused $file"
	msg "$file: job $id at ${LAVA_URL%/}/scheduler/job/$id"
	"${lava[@]}" jobs wait "$id" || die "waiting for job $id failed"
	result=$("${lava[@]}" results "$id") || die "no results for job $id"
	echo "$result"
	! grep -q '\[fail\]' <<<"$result" || die "job $id: a test case failed"
}

case ${1:-} in
render)	[ $# -ge 2 ] || die "usage: lava.sh render SCENARIO [DEVICE_TYPE]"
	render "$2" "${3:-qemu}" ;;
validate) shift; validate "$@" ;;
disks)	[ $# -eq 2 ] || die "usage: lava.sh disks DIR"
	disks "$2" ;;
check)	check ;;
run)	[ $# -eq 2 ] || die "usage: lava.sh run FILE"
	run "$2" ;;
submit)	[ $# -eq 2 ] || die "usage: lava.sh submit FILE"
	submit "$2" ;;
*)	die "usage: lava.sh render|disks|validate|check|run|submit ..." ;;
esac
