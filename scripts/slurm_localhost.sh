#!/usr/bin/env bash
# A single-node Slurm on localhost (munge, slurmctld, slurmd as root) for the opt-in sweep test in
# tests/cli_sweep.rs. Needs Debian's slurm-wlm and munge; idempotent. Usage: scripts/slurm_localhost.sh
set -euo pipefail
host=$(hostname)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /etc/munge
if [[ ! -f /etc/munge/munge.key ]]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=fricsim
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmUser=root
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$(slurmd -C | head -1)
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 1 30); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then exit 0; fi
    sleep 1
done
echo "slurm did not come up" >&2
sinfo >&2 || true
exit 1
