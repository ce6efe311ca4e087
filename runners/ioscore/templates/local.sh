#!/bin/bash
# ioscore benchmark run on this machine (rendered by `ioscore run --scheduler local`).
set -euo pipefail
${keep_job_files}
cd ${workdir}
echo "ioscore: ${ranks} ranks (${ppn} per node), config ${config}"
# the ranks start with the launcher's own words (ioscore run --launcher: openmpi, mpich, srun, flux)
${launch} ${suite} ${config} ${suite_args}
echo "ioscore: results, job.sh and job.out are in $$run_dir"
