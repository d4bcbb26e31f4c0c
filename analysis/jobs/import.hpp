// Importers of recorded cluster job traces: each turns one public trace format into a stream of
// Jobs (job.hpp) in submission order, submit_s counted from the earliest submission.
//
// Memory. A format whose files are sorted by submission is streamed: the reader holds one row.
// A format that is not (or that must be joined) is read whole at open_job_trace and its jobs,
// not its text, are kept and sorted (stable: ties keep file order). Per format below.
//
// Bad rows (a cell that is not what the format says, a row of the wrong width, a JSON value of
// the wrong type) are, by BadRowPolicy, skipped and counted (skipped(); the first
// max_kept_bad_rows kept by bad_rows() with their lines) or thrown as
// analysis::InputError(file, "line N", what was expected). A header that lacks the format's
// columns, or a file that is not JSON where JSON is expected, is always an InputError.
// Valid rows of jobs that used no GPU time are left out and counted by not_run(): which ones,
// per format below. Streaming readers throw from next(); reading-whole ones from open_job_trace.
//
// Formats (registry names):
//  philly      Microsoft Philly cluster_job_log (msr-fiddle/philly-traces; Jeon et al., ATC 2019):
//              a JSON array of {jobid, user, vc, submitted_time, attempts: [{start_time, end_time,
//              detail: [{ip, gpus: [...]}]}], status}, times "YYYY-MM-DD HH:MM:SS" or "None".
//              gpus: the GPUs listed by the first attempt that lists any; duration: the sum over
//              attempts with both times of end - start (retry gaps are queueing); submit:
//              submitted_time; user (vc when user is empty), vc. Streamed through a SAX parser
//              one job object at a time (the real file is ~1 GB); not documented as sorted, so
//              sorted in memory. not_run: no attempt, no GPUs, or no attempt with both times.
//  philly-csv  The Pollux artifact's philly.csv (petuum/adaptdl, osdi21-artifact):
//              timestamp,duration,num_gpus,gpu_time,cluster; timestamp as submission, duration s,
//              user = vc = cluster, id "line N". Not sorted (checked: rows jump back in time), so
//              sorted in memory. not_run: num_gpus 0 or duration 0.
//  gavel       Gavel's tab-separated traces (stanford-futuredata/gavel scheduler/traces): job
//              type, command, step flag, needs-data-dir, total steps, arrival s, scale factor
//              (= GPUs). duration = total steps / the job type's steps per second alone on one
//              V100 (data/gavel_throughputs.csv, Gavel's own measurements); gpu_type "V100",
//              workload = job type. Sorted by arrival: streamed, a row out of order is bad.
//  pai         Alibaba PAI 2020 (alibaba/clusterdata cluster-trace-gpu-v2020): `path` is the job
//              table (job_name,inst_id,user,status,start_time,end_time; start_time is the
//              submission) and the task table sits beside it, named with "task_table" for
//              "job_table" (pai_task_table.csv: job_name,task_name,inst_num,status,start_time,
//              end_time,plan_cpu,plan_mem,plan_gpu,gpu_type). Headerless as released; a header
//              row is skipped. Tasks are joined to jobs by job_name: GPU percent = sum of
//              inst_num x plan_gpu, gpus = ceil(percent / 100), gpu_fraction = percent / 100
//              below one GPU; duration = last task end - first task start; gpu_type of the first
//              GPU task. Join and order need memory: both read whole, the tasks summed per job.
//              not_run: no task, no GPU asked for, a task never started or never ended.
//  helios      SenseTime Helios cluster_log.csv (S-Lab-System-Group/HeliosData): job_id,user,vc,
//              gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue;
//              dates or Unix seconds, duration s. Job ids follow submission, so files are
//              expected sorted: a first pass checks and the file is streamed, else sorted in
//              memory. All end states are kept (a failed job held its GPUs). not_run: gpu_num 0
//              (CPU jobs), empty start and duration (never started), or duration 0.
//  acme        Shanghai AI Lab AcmeTrace trace_seren.csv / trace_kalos.csv (InternLM/AcmeTrace):
//              job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,
//              duration,queue,gpu_time (Kalos adds columns, ignored); dates with a UTC offset.
//              workload = type. Order and not_run as helios.
//  openb       Alibaba GPU-sharing pod list (openb_pod_list_*.csv, alibaba/clusterdata
//              cluster-trace-gpu-v2023; Weng et al., ATC 2023): name,cpu_milli,memory_mib,
//              num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
//              scheduled_time (seconds). submit = creation, duration = deletion - scheduled,
//              gpus = num_gpu, gpu_fraction = gpu_milli / 1000 for one-GPU pods, gpu_type =
//              gpu_spec, spot_ok for qos BE (best effort, the class the cluster may evict).
//              pod_phase is not used: every phase, Running included, carries a deletion time.
//              Order as helios (the shipped file is sorted). not_run: num_gpu 0 (CPU pods),
//              never scheduled (empty scheduled_time: the Pending pods), or deleted when scheduled.
//  csv         rentsim's own: a header naming submit_s,gpus,duration_s,gpu_type,user,priority,
//              spot_ok in any order, optional id and workload, no other column; submit_s >= 0,
//              gpus >= 1, duration_s > 0, priority a whole number, spot_ok true/false/1/0. Must
//              be sorted by submit_s: streamed, a row out of order is bad. No not_run rows.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "analysis/jobs/job.hpp"
#include "models/registry.hpp"

namespace rentsim::jobs {

// philly, philly-csv, gavel, pai, helios, acme, openb, csv, each with a one-line description.
const Registry<Format>& job_format_registry();

// Opens `path` as `format`. Throws analysis::InputError when the file cannot be opened, is not of
// the format, or (policy fail) has a bad row in a format read whole.
std::unique_ptr<JobReader> open_job_trace(const std::string& path, Format format, BadRowPolicy policy);

// The format of `path` from its first bytes and header line: a JSON array is philly, a known
// header names its format, seven tab-separated fields are gavel, six comma-separated fields with
// no header (or PAI's own header) are pai. nullopt when none fits or the file cannot be read.
std::optional<Format> sniff_job_format(const std::string& path);

}  // namespace rentsim::jobs
