// An interim reader of rentsim's own job CSV, `submit_s,gpus,duration_s,gpu_type,user,priority,
// spot_ok` (a header line, then one job a line, in submission order), so that `rentsim cluster`
// runs before the job-trace importers (analysis/jobs/import.hpp, open_job_trace) are in; the
// commands are to call open_job_trace instead once they are. Streams the file.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "analysis/jobs/job.hpp"

namespace rentsim::capacity {

class RentsimCsvJobReader : public jobs::JobReader {
public:
    // Throws InputError when the file cannot be opened or its header is not the one above.
    RentsimCsvJobReader(const std::string& path, jobs::BadRowPolicy policy);
    // A bad row is skipped (counted) or, with BadRowPolicy::fail, an InputError naming its line.
    std::optional<jobs::Job> next() override;
    std::int64_t skipped() const override { return skipped_; }
    const std::vector<jobs::BadRow>& bad_rows() const override { return bad_; }

private:
    std::string path_;
    std::ifstream in_;
    jobs::BadRowPolicy policy_;
    std::int64_t line_ = 0, skipped_ = 0;
    double last_submit_ = 0;
    std::vector<jobs::BadRow> bad_;
};

// Bad rows kept for reports; the rest are counted.
inline constexpr std::size_t max_kept_bad_rows = 20;

}  // namespace rentsim::capacity
