# tests/sh/lib_safetensors.sh — sourced by shell tests (defines functions only): craft safetensors
# files whose header says something else but whose checksums still hold, as a hostile user would.

# st_edit IN OUT SED-EXPRESSION: OUT is IN with the sed expression applied to its JSON header, the
# header re-padded and its header_crc32 recomputed (the CRC-32 of gzip's trailer is the same CRC).
st_edit() {
    _hlen=$(od -An -tu8 -N8 "$1" | tr -d ' ')
    dd if="$1" bs=8 skip=1 count=$((_hlen / 8)) 2>/dev/null | sed -e 's/ *$//' -e "$3" |
        sed 's/"header_crc32":"[0-9a-f]*"/"header_crc32":"00000000"/' | tr -d '\n' >"$2.hdr"
    _n=$(wc -c <"$2.hdr")
    while [ $((_n % 8)) != 0 ]; do printf ' ' >>"$2.hdr"; _n=$((_n + 1)); done
    _crc=$(gzip -c <"$2.hdr" | tail -c 8 | od -An -tx4 -N4 | tr -d ' ')
    sed -i "s/\"header_crc32\":\"00000000\"/\"header_crc32\":\"$_crc\"/" "$2.hdr"
    # the length as 8 little-endian bytes
    _len=""
    _v=$_n
    for _i in 1 2 3 4 5 6 7 8; do
        _len="$_len\\$(printf '%03o' $((_v % 256)))"
        _v=$((_v / 256))
    done
    # shellcheck disable=SC2059
    { printf "$_len"; cat "$2.hdr"; tail -c +$((9 + _hlen)) "$1"; } >"$2"
    rm -f "$2.hdr"
}

# flip_bit IN OUT OFFSET: OUT is IN with one bit of byte OFFSET flipped (bit OFFSET mod 8).
flip_bit() {
    cp "$1" "$2"
    _b=$(od -An -tu1 -j "$3" -N1 "$1" | tr -d ' ')
    # shellcheck disable=SC2059
    printf "\\$(printf '%03o' $((_b ^ (1 << ($3 % 8)))))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null
}
