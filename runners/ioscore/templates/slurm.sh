#!/bin/bash
# ioscore benchmark job for Slurm (rendered by `ioscore run --scheduler slurm`).
#SBATCH --job-name=${job_name}
#SBATCH --nodes=${nodes}
#SBATCH --ntasks=${ranks}
#SBATCH --ntasks-per-node=${ppn}
#SBATCH --time=${walltime}
#SBATCH --output=${job_name}-%j.out
${scheduler_extra}
set -euo pipefail
${keep_job_files}
cd ${workdir}
# the ranks start with the launcher's own words (ioscore run --launcher: openmpi, mpich, srun, flux)
${launch} ${suite} ${config} ${suite_args}
echo "ioscore: results, job.sh and job.out are in $$run_dir"
