# The pieces every rxe VM harness shares (run-with-rxe: one VM on a tap;
# run-pair: two VMs on a bridge). Sourced, not run. The caller defines
# say, skip (exit 77 with the reason) and die (exit 1), and keeps the PIDs it
# starts so that its own teardown can stop them with rxe_stop_pid.

# rxe_vm_preflight: can a VM run here at all? Sets rxe_qemu, rxe_accel and
# rxe_cpu, or skips with the reason.
rxe_vm_preflight() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (network namespace and tap device)"
  rxe_qemu=$(command -v "${ROCE_RXE_QEMU:-qemu-system-x86_64}" 2>/dev/null) ||
    skip "${ROCE_RXE_QEMU:-qemu-system-x86_64} not found (Debian package qemu-system-x86)"
  [ -c /dev/net/tun ] || skip "no /dev/net/tun (tap devices unavailable)"
  command -v ip >/dev/null || skip "iproute2's ip not found"
  rxe_accel=${ROCE_RXE_ACCEL:-}
  if [ -z "$rxe_accel" ]; then
    # Nested KVM without VMX/SVM exposed to us stalls a standard kernel:
    # only use KVM when the CPU we see can do hardware virtualisation itself.
    if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
      rxe_accel=kvm
    else
      rxe_accel=tcg
      [ -e /dev/kvm ] && say "/dev/kvm exists but this CPU shows no vmx/svm (nested without it): using TCG"
    fi
  fi
  case $rxe_accel in
    kvm) rxe_cpu=host ;;
    tcg) rxe_cpu=max ;;
    *) die "ROCE_RXE_ACCEL: kvm or tcg, not $rxe_accel" ;;
  esac
}

# rxe_vm_kernel: Debian's kernel, prepared by fetch-kernel; sets rxe_kdir.
rxe_vm_kernel() {
  local st=0
  rxe_kdir=$("$RXE_VM_DIR/fetch-kernel") || st=$?
  [ $st -eq 0 ] || { [ $st -eq 77 ] && exit 77; die "fetch-kernel failed"; }
}

# rxe_gid_of ADDRESS: the RoCEv2 GID of an IPv4 or IPv6 address.
rxe_gid_of() {
  python3 -c 'import ipaddress,sys
a=ipaddress.ip_address(sys.argv[1])
b=(b"\0"*10+b"\xff\xff"+a.packed) if a.version==4 else a.packed
print(":".join(b[i:i+2].hex() for i in range(0,16,2)))' "$1"
}

# rxe_vm_conf FILE IPV4 IPV6 MTU AGENT_PORT: the guest's /etc/roce-rxe.conf.
rxe_vm_conf() {
  cat >"$1" <<CONF
GUEST_IPV4=$2
PREFIX_IPV4=24
GUEST_IPV6=$3
PREFIX_IPV6=64
GUEST_GID4=$(rxe_gid_of "$2")
GUEST_GID6=$(rxe_gid_of "$3")
AGENT_PORT=$5
MTU=$4
CONF
}

# rxe_vm_start NETNS TAP MAC KERNEL INITRD DIR: boots qemu in the background
# (no_timer_check: under TCG on a busy host the kernel's check that the
# 8254 timer interrupt reaches the IO-APIC times out and it panics, "IO-APIC
# + timer doesn't work!"; seen with two guests on a loaded 2-core machine)
# on the tap device TAP (in NETNS) with the guest NIC's MAC. DIR receives
# serial.log (the console, ttyS0), the control pipes ctl.in/ctl.out (the
# guest's ttyS1) and qemu.out. Sets rxe_vm_pid; rxe_vm_started is the start
# time. The caller also starts a reader of ctl.out when it uses the
# guest's answers (guest-run).
rxe_vm_start() {
  local ns=$1 tap=$2 mac=$3 kernel=$4 initrd=$5 dir=$6
  : >"$dir/serial.log"
  mkfifo "$dir/ctl.in" "$dir/ctl.out"
  rxe_vm_started=$(date +%s.%N)
  ip netns exec "$ns" "$rxe_qemu" -nodefaults -no-user-config -display none -no-reboot \
    -machine pc,accel="$rxe_accel" -cpu "$rxe_cpu" -smp 1 -m 512 \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 rdinit=/init panic=-1 quiet no_timer_check" \
    -serial file:"$dir/serial.log" -chardev pipe,id=ctl,path="$dir/ctl" -serial chardev:ctl \
    -netdev tap,id=net0,ifname="$tap",script=no,downscript=no \
    -device virtio-net-pci,netdev=net0,mac="$mac" \
    </dev/null >"$dir/qemu.out" 2>&1 &
  rxe_vm_pid=$!
}

# rxe_vm_show_console DIR [NAME]: the last lines of a guest's console.
rxe_vm_show_console() {
  say "guest console${2:+ of $2} (last 60 lines):"
  tail -n 60 "$1/serial.log" >&2 2>/dev/null || true
}

# rxe_vm_poll_ready DIR PID: 0 ready, 1 not yet; dies when the guest failed
# or qemu exited.
rxe_vm_poll_ready() {
  local dir=$1 pid=$2
  if grep -q '^rxe-vm: READY' "$dir/serial.log"; then return 0; fi
  if grep -q '^rxe-vm: FAILED' "$dir/serial.log"; then
    rxe_vm_show_console "$dir"
    die "the guest failed to bring up rxe0"
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$dir/qemu.out" >&2
    rxe_vm_show_console "$dir"
    die "qemu exited before the guest was ready"
  fi
  return 1
}

# rxe_vm_wait_ready DEADLINE DIR PID [DIR PID...]: until every guest printed
# its ready marker, or dies at DEADLINE (seconds since the epoch).
rxe_vm_wait_ready() {
  local deadline=$1 waiting i
  shift
  local vms=("$@")
  while :; do
    waiting=0
    for ((i = 0; i < ${#vms[@]}; i += 2)); do
      rxe_vm_poll_ready "${vms[i]}" "${vms[i + 1]}" || waiting=1
    done
    [ $waiting -eq 1 ] || return 0
    if [ "$(date +%s)" -ge "$deadline" ]; then
      for ((i = 0; i < ${#vms[@]}; i += 2)); do
        rxe_vm_poll_ready "${vms[i]}" "${vms[i + 1]}" || rxe_vm_show_console "${vms[i]}"
      done
      die "no ready guest within the time allowed (accel=$rxe_accel)"
    fi
    sleep 0.05
  done
}

# rxe_stop_pid PID: TERM, a bounded wait, then KILL; only our own children.
rxe_stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
