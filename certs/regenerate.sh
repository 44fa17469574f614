#!/bin/sh
# Regenerates PeerBench's bundled TLS identities with certtool (Debian: gnutls-bin):
#   ca.pem / ca-key.pem           test CA (signs the two identities below)
#   server.pem / server-key.pem   server identity: localhost, 127.0.0.1, ::1 and the
#                                 emulated link's namespace addresses 10.201.0.0/30
#   client.pem / client-key.pem   client identity for the QUIC plugin's mutualTLS option
# Valid for 20 years from the day this runs. These are TEST identities: the private
# keys are public by design. Usage: certs/regenerate.sh [DAYS]
set -eu
cd "$(dirname "$0")"
days="${1:-7300}"
command -v certtool >/dev/null || { echo "certtool not found: apt-get install gnutls-bin" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/ca.tmpl" <<T
cn = "PeerBench Test CA"
organization = "PeerBench"
serial = 1
expiration_days = $days
ca
cert_signing_key
crl_signing_key
T

cat > "$tmp/server.tmpl" <<T
cn = "peerbench-server"
organization = "PeerBench"
serial = 2
expiration_days = $days
dns_name = "localhost"
dns_name = "peerbench-server"
ip_address = "127.0.0.1"
ip_address = "::1"
ip_address = "10.201.0.0"
ip_address = "10.201.0.1"
ip_address = "10.201.0.2"
ip_address = "10.201.0.3"
tls_www_server
signing_key
T

cat > "$tmp/client.tmpl" <<T
cn = "peerbench-client"
organization = "PeerBench"
serial = 3
expiration_days = $days
tls_www_client
signing_key
T

gen_key() { certtool --generate-privkey --key-type=ed25519 --no-text --outfile "$1" 2>/dev/null; }

gen_key ca-key.pem
certtool --generate-self-signed --load-privkey ca-key.pem --template "$tmp/ca.tmpl" --no-text --outfile ca.pem 2>/dev/null
for who in server client; do
    gen_key "$who-key.pem"
    certtool --generate-certificate --load-privkey "$who-key.pem" --load-ca-certificate ca.pem \
        --load-ca-privkey ca-key.pem --template "$tmp/$who.tmpl" --no-text --outfile "$who.pem" 2>/dev/null
done
certtool --verify --load-ca-certificate ca.pem --infile server.pem >/dev/null 2>&1
certtool --verify --load-ca-certificate ca.pem --infile client.pem >/dev/null 2>&1
echo "regenerated ca.pem, server.pem, client.pem (valid $days days) in $(pwd)"
