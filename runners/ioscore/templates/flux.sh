#!/bin/bash
# ioscore benchmark job for Flux (rendered by `ioscore run --scheduler flux`).
#flux: --job-name=${job_name}
#flux: -N ${nodes}
#flux: -n ${ranks}
#flux: -t ${walltime_minutes}m
${scheduler_extra}
set -euo pipefail
${keep_job_files}
cd ${workdir}
# the ranks start with the launcher's own words (ioscore run --launcher: openmpi, mpich, srun, flux)
${launch} ${suite} ${config} ${suite_args}
echo "ioscore: results, job.sh and job.out are in $$run_dir"
