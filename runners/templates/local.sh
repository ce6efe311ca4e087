#!/bin/bash
# ioscore benchmark run on this machine (rendered by `ioscore run --scheduler local`).
set -euo pipefail
cd ${workdir}
echo "ioscore: ${ranks} ranks (${ppn} per node), config ${config}"
${mpirun} ${mpirun_flags} -np ${ranks} ${suite} ${config} ${suite_args}
echo "ioscore: results are in "${resultdir}"/<timestamp of this run>"
