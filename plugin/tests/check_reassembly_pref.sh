#!/bin/sh
# The preference rocev2.reassemble: on (the default), the packets of the
# messages of several packets in flows-messages.pcap carry their Message
# items and the whole RPC-over-RDMA SEND goes to the ULP at its Last; off,
# no packet carries one and no Info column tells of a reassembly.
# usage: check_reassembly_pref.sh TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
set -eu
tshark=$1 dir=$2 caps=$3
fail=0
count() { # options..., prints the frames with a Message item and with a reassembly in Info
  "$tshark" "$dir" -n -2 -r "$caps/flows-messages.pcap" "$@" -T fields \
    -e rocev2.msg.first_in -e rocev2.msg.reassembled_in -e _ws.col.Info |
    awk -F"\t" '$1 != "" || $2 != "" { m++ } /message of [0-9]+ packets reassembled/ { r++ }
             END { printf "%d %d\n", m, r }'
}
on=$(count)
off=$(count -o rocev2.reassemble:FALSE)
echo "reassembly on: $on (frames with a Message item, frames that completed one)"
echo "reassembly off: $off"
[ "$on" = "20 6" ] || { echo "FAIL: with reassembly on, expected 20 frames in messages and 6 messages made whole"; fail=1; }
[ "$off" = "0 0" ] || { echo "FAIL: with reassembly off, no frame may show a message"; fail=1; }
exit $fail
