#!/bin/bash
# ioscore benchmark job for PBS Pro / OpenPBS (rendered by `ioscore run --scheduler pbs`).
#PBS -N ${job_name}
#PBS -l select=${nodes}:ncpus=${ppn}:mpiprocs=${ppn}
#PBS -l walltime=${walltime}
#PBS -j oe
${scheduler_extra}
set -euo pipefail
${keep_job_files}
cd ${workdir}
# the ranks start with the launcher's own words (ioscore run --launcher: openmpi, mpich, srun, flux)
${launch} ${suite} ${config} ${suite_args}
echo "ioscore: results, job.sh and job.out are in $$run_dir"
