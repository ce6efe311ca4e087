#!/bin/bash
# ioscore benchmark run on this machine (rendered by `ioscore run --scheduler local`).
set -euo pipefail
${keep_job_files}
cd ${workdir}
echo "ioscore: ${ranks} ranks (${ppn} per node), config ${config}"
${mpirun} ${mpirun_flags} -np ${ranks} ${suite} ${config} ${suite_args}
echo "ioscore: results, job.sh and job.out are in $$run_dir"
