// One opener per trace format (internal to analysis/jobs; import.hpp documents each format).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "analysis/jobs/job.hpp"

namespace rentsim::jobs {

// Larger than any recorded job; keeps GPU counts far from int overflow.
inline constexpr std::int64_t max_job_gpus = 1 << 20;

std::unique_ptr<JobReader> open_philly_json(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_philly_csv(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_gavel(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_pai(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_helios(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_acme(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_openb(const std::string& path, BadRowPolicy policy);
std::unique_ptr<JobReader> open_rentsim_csv(const std::string& path, BadRowPolicy policy);

// The header rows the CSV formats are recognised by (sniff_job_format) and name in messages.
inline constexpr std::string_view philly_csv_columns = "timestamp,duration,num_gpus,gpu_time,cluster";
inline constexpr std::string_view helios_columns =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue";
inline constexpr std::string_view acme_columns =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time";
inline constexpr std::string_view openb_columns =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time";
inline constexpr std::string_view rentsim_csv_columns = "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok";
inline constexpr std::string_view pai_job_columns = "job_name,inst_id,user,status,start_time,end_time";
inline constexpr std::string_view pai_task_columns =
    "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type";

// Gavel's steps per second of a job type alone on one V100 (data/gavel_throughputs.csv); nullptr
// for an unknown job type.
const double* gavel_v100_steps_per_s(std::string_view job_type);
// "unknown Gavel job type 'x'; did you mean ...? valid: ..."
std::string gavel_unknown_type_message(std::string_view job_type);

}  // namespace rentsim::jobs
