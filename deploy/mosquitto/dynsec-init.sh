#!/bin/sh
# Once, on the broker machine: creates the dynamic security file with Farmstead's login (the plugin's admin
# role, to manage the devices' logins) and gives that login the role `farmstead-service` (the devices'
# topics through the shared subscription). Devices are added by Farmstead itself.
#   sh deploy/mosquitto/dynsec-init.sh 'the-password'   (then FARMSTEAD_MQTT_BROKER=mqtt://farmstead:the-password@…)
# MOSQUITTO_HOST and MOSQUITTO_PORT (default localhost and 1883) name the listener it speaks to.
set -eu
password="$1"
host="${MOSQUITTO_HOST:-localhost}"
port="${MOSQUITTO_PORT:-1883}"
file=/var/lib/mosquitto/dynamic-security.json
mosquitto_ctrl dynsec init "$file" farmstead "$password"
chown mosquitto:mosquitto "$file"
systemctl restart mosquitto
ctrl() { mosquitto_ctrl -h "$host" -p "$port" -u farmstead -P "$password" dynsec "$@"; }
# The broker takes a moment to listen again after the restart.
tries=0
until ctrl listClients >/dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -ge 30 ]; then echo "Mosquitto did not answer on $host:$port" >&2; exit 1; fi
  sleep 1
done
ctrl createRole farmstead-service
ctrl addRoleACL farmstead-service publishClientSend 'farmstead/devices/#' allow
ctrl addRoleACL farmstead-service publishClientReceive 'farmstead/devices/#' allow
ctrl addRoleACL farmstead-service subscribePattern '$share/farmstead/farmstead/devices/#' allow
ctrl addRoleACL farmstead-service unsubscribePattern '$share/farmstead/farmstead/devices/#' allow
ctrl addClientRole farmstead farmstead-service
