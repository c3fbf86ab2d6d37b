#!/bin/sh
# Once, on the broker machine: creates the dynamic security file with Farmstead's login (the plugin's admin
# role, to manage the devices' logins) and gives that login the role `farmstead-service` (the devices'
# topics through the shared subscription). Devices are added by Farmstead itself.
#   sh deploy/mosquitto/dynsec-init.sh 'the-password'   (then FARMSTEAD_MQTT_BROKER=mqtt://farmstead:the-password@…)
set -eu
password="$1"
file=/var/lib/mosquitto/dynamic-security.json
mosquitto_ctrl dynsec init "$file" farmstead "$password"
chown mosquitto:mosquitto "$file"
systemctl restart mosquitto
ctrl() { mosquitto_ctrl -u farmstead -P "$password" dynsec "$@"; }
ctrl createRole farmstead-service
ctrl addRoleACL farmstead-service publishClientSend 'farmstead/devices/#' allow
ctrl addRoleACL farmstead-service publishClientReceive 'farmstead/devices/#' allow
ctrl addRoleACL farmstead-service subscribePattern '$share/farmstead/farmstead/devices/#' allow
ctrl addRoleACL farmstead-service unsubscribePattern '$share/farmstead/farmstead/devices/#' allow
ctrl addClientRole farmstead farmstead-service
