// The importers on rows written by hand in each format's documented layout (the Philly JSON log,
// PAI, Helios and Acme are too large to ship), bad rows, skip and fail, and sniffing.
#include <doctest/doctest.h>

#include "analysis/jobs/import.hpp"
#include "jobs_test_util.hpp"

using namespace rentsim::jobs;
using namespace rentsim::jobs::test;

namespace {

// Four jobs in the cluster_job_log layout: A (two attempts on 8 GPUs), B (submitted before A),
// C (never attempted), D (killed before it started).
const char* const philly_log = R"([
  {"status": "Pass", "vc": "ee9e8c", "jobid": "application_A", "user": "u1",
   "submitted_time": "2017-10-01 00:00:10",
   "attempts": [
     {"start_time": "2017-10-01 00:01:00", "end_time": "2017-10-01 01:01:00",
      "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]},
                 {"ip": "m2", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]},
     {"start_time": "2017-10-01 02:00:00", "end_time": "2017-10-01 02:30:00",
      "detail": [{"ip": "m3", "gpus": ["gpu0"]}]}]},
  {"status": "Failed", "vc": "6214e9", "jobid": "application_B", "user": "",
   "submitted_time": "2017-10-01 00:00:00",
   "attempts": [{"start_time": "2017-10-01 00:00:30", "end_time": "2017-10-01 00:10:30",
                 "detail": [{"ip": "m4", "gpus": ["gpu5"]}]}]},
  {"status": "Killed", "vc": "6214e9", "jobid": "application_C", "user": "u2",
   "submitted_time": "2017-10-01 00:05:00", "attempts": []},
  {"status": "Killed", "vc": "6214e9", "jobid": "application_D", "user": "u2",
   "submitted_time": "2017-10-01 00:06:00",
   "attempts": [{"start_time": "None", "end_time": "None", "detail": []}]}
]
)";

}  // namespace

TEST_CASE("philly reads jobs of the cluster_job_log, summing attempts and sorting by submission") {
    TempDir dir("philly");
    const auto path = dir.write("cluster_job_log", philly_log);
    CHECK(sniff_job_format(path) == Format::philly);
    auto r = open_job_trace(path, Format::philly, BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(r->not_run() == 2);
    CHECK(r->skipped() == 0);
    CHECK(jobs[0].id == "application_B");
    CHECK(jobs[0].submit_s == 0);
    CHECK(jobs[0].gpus == 1);
    CHECK(jobs[0].duration_s == 600);
    CHECK(jobs[0].user == "6214e9");  // no user: the virtual cluster
    CHECK(jobs[0].line == 10);
    CHECK(jobs[1].id == "application_A");
    CHECK(jobs[1].submit_s == 10);
    CHECK(jobs[1].gpus == 8);  // the first attempt's GPUs
    CHECK(jobs[1].duration_s == 3600 + 1800);
    CHECK(jobs[1].user == "u1");
    CHECK(jobs[1].vc == "ee9e8c");
    CHECK(jobs[1].line == 2);
}

TEST_CASE("a Philly job with a bad submission time is skipped with its line, or fatal") {
    TempDir dir("philly-bad");
    const auto path = dir.write("log.json",
                                "[\n {\"jobid\": \"j1\", \"submitted_time\": \"yesterday\", \"attempts\": []},\n"
                                " {\"jobid\": \"j2\", \"submitted_time\": \"2017-10-01 00:00:00\",\n"
                                "  \"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 00:01:00\","
                                " \"detail\": [{\"ip\": \"m\", \"gpus\": [\"g\"]}]}]},\n 7\n]");
    auto r = open_job_trace(path, Format::philly, BadRowPolicy::skip);
    CHECK(read_all(*r).size() == 1);
    CHECK(r->skipped() == 2);
    REQUIRE(r->bad_rows().size() == 2);
    CHECK(r->bad_rows()[0].line == 2);
    CHECK(r->bad_rows()[0].message == "\"submitted_time\": expected a date 'YYYY-MM-DD HH:MM:SS', got 'yesterday'");
    CHECK(r->bad_rows()[1].line == 5);
    CHECK(r->bad_rows()[1].message == "expected a job object, got a JSON number");
    CHECK(input_error([&] { open_job_trace(path, Format::philly, BadRowPolicy::fail); }) ==
          path + ": line 2: \"submitted_time\": expected a date 'YYYY-MM-DD HH:MM:SS', got 'yesterday'");
}

TEST_CASE("a Philly log that is not a JSON array of jobs is an input error") {
    TempDir dir("philly-broken");
    const auto truncated = dir.write("t.json", "[\n {\"jobid\": \"j1\",\n");
    CHECK(input_error([&] { open_job_trace(truncated, Format::philly, BadRowPolicy::skip); })
              == truncated + ": line 2: invalid JSON: syntax error while parsing object key - unexpected end of input; expected string literal");
    const auto object = dir.write("o.json", "{\"jobs\": []}");
    CHECK(input_error([&] { open_job_trace(object, Format::philly, BadRowPolicy::skip); }) ==
          object + ": line 1: expected a JSON array of Philly jobs ([{\"jobid\": ...}, ...]), got an object");
}

TEST_CASE("pai joins the task table beside the job table: GPUs from inst_num x plan_gpu, run time from the tasks") {
    TempDir dir("pai");
    const auto jobs_path = dir.write("pai_job_table.csv",
                                     "j1,i1,alice,Terminated,100,700\n"
                                     "j2,i2,bob,Failed,50,200\n"
                                     "j3,i3,carol,Terminated,60,90\n"
                                     "j4,i4,dave,Running,70,\n"
                                     "j5,i5,erin,Waiting,80,\n");
    dir.write("pai_task_table.csv",
              "j1,ps,1.0,Terminated,150,600,600.0,29.3,,\n"
              "j1,worker,4.0,Terminated,200,500,400.0,10.0,100.0,T4\n"
              "j2,tensorflow,1.0,Failed,60,160,600.0,29.3,25.0,MISC\n"
              "j3,ps,2.0,Terminated,61,89,600.0,29.3,0.0,\n"
              "j4,worker,1.0,Running,75,,600.0,29.3,50.0,V100\n");
    CHECK(sniff_job_format(jobs_path) == Format::pai);
    auto r = open_job_trace(jobs_path, Format::pai, BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(r->not_run() == 3);  // j3 CPU only, j4 still running, j5 no task
    CHECK(jobs[0].id == "j2");
    CHECK(jobs[0].submit_s == 0);
    CHECK(jobs[0].gpus == 1);
    CHECK(jobs[0].gpu_fraction == 0.25);
    CHECK(jobs[0].duration_s == 100);
    CHECK(jobs[0].gpu_type == "MISC");
    CHECK(jobs[0].user == "bob");
    CHECK(jobs[1].id == "j1");
    CHECK(jobs[1].submit_s == 50);
    CHECK(jobs[1].gpus == 4);
    CHECK(jobs[1].gpu_fraction == 1);
    CHECK(jobs[1].duration_s == 450);  // first task start 150 to last task end 600
    CHECK(jobs[1].gpu_type == "T4");
}

TEST_CASE("pai without its task table, or with a bad task row, says which file and line") {
    TempDir dir("pai-bad");
    const auto named = dir.write("jobs.csv", "j1,i1,alice,Terminated,100,700\n");
    CHECK(input_error([&] { open_job_trace(named, Format::pai, BadRowPolicy::skip); }) ==
          named + ": a PAI trace is read from its job table, whose file name holds 'job_table' (pai_job_table.csv), "
                  "with the task table beside it (pai_task_table.csv)");
    const auto alone = dir.write("x_job_table.csv", "j1,i1,alice,Terminated,100,700\n");
    const std::string task = (dir.path / "x_task_table.csv").string();
    CHECK(input_error([&] { open_job_trace(alone, Format::pai, BadRowPolicy::skip); }) ==
          task + ": the PAI task table is missing: it must sit beside the job table " + alone);
    dir.write("x_task_table.csv", "j1,worker,1.0,Terminated,150,600,600.0,29.3,lots,T4\n");
    CHECK(input_error([&] { open_job_trace(alone, Format::pai, BadRowPolicy::fail); }) ==
          task + ": line 1: column 'plan_gpu': expected percent of a GPU >= 0, or empty, got 'lots'");
    auto r = open_job_trace(alone, Format::pai, BadRowPolicy::skip);
    CHECK(read_all(*r).empty());
    CHECK(r->not_run() == 1);
    REQUIRE(r->bad_rows().size() == 1);
    CHECK(r->bad_rows()[0].message == "x_task_table.csv: column 'plan_gpu': expected percent of a GPU >= 0, or empty, got 'lots'");
    const auto big = dir.write("big_job_table.csv", "j9,i9,zed,Terminated,0,10\n");
    dir.write("big_task_table.csv", "j9,w,1048576,Terminated,1,9,600.0,29.3,200.0,V100\n");
    auto b = open_job_trace(big, Format::pai, BadRowPolicy::skip);
    CHECK(read_all(*b).empty());
    REQUIRE(b->bad_rows().size() == 1);
    CHECK(b->bad_rows()[0].line == 1);
    CHECK(b->bad_rows()[0].message == "its tasks ask for more than 1048576 GPUs (inst_num x plan_gpu summed)");
}

TEST_CASE("helios streams a sorted cluster_log.csv and leaves out CPU jobs and jobs that never ran") {
    TempDir dir("helios");
    const auto path = dir.write("cluster_log.csv",
                                "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                                "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
                                "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
                                "1425513,uzqls,vcpDC,0,1,1,COMPLETED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-09 18:42:28,60,0\n"
                                "1425514,uzqls,vcpDC,2,1,1,CANCELLED,2020-06-09 18:41:29,,,,0\n"
                                "1425515,uzqls,vcpDC,2,1,1,COMPLETED,June 9th,2020-06-09 18:41:29,2020-06-09 18:42:29,60,0\n"
                                "1425516,uXBbc,vcJkd,16,64,2,COMPLETED,2020-06-09 18:42:01,2020-06-09 18:50:01,2020-06-09 19:50:01,3600,480\n");
    CHECK(sniff_job_format(path) == Format::helios);
    auto r = open_job_trace(path, Format::helios, BadRowPolicy::skip);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 3);
    CHECK(r->not_run() == 2);
    CHECK(r->skipped() == 1);
    REQUIRE(r->bad_rows().size() == 1);
    CHECK(r->bad_rows()[0].line == 6);
    CHECK(r->bad_rows()[0].message ==
          "column 'submit_time': expected a date 'YYYY-MM-DD HH:MM:SS[+HH:MM]' or Unix seconds, got 'June 9th'");
    CHECK(jobs[0].id == "1425511");
    CHECK(jobs[0].submit_s == 0);
    CHECK(jobs[0].duration_s == 36848);
    CHECK(jobs[0].vc == "vcJkd");
    CHECK(jobs[1].submit_s == 26);
    CHECK(jobs[1].gpus == 4);
    CHECK(jobs[2].submit_s == 60);
    CHECK(jobs[2].gpus == 16);
    CHECK(jobs[2].line == 7);
    CHECK(input_error([&] { open_job_trace(path, Format::helios, BadRowPolicy::fail)->next(); }).empty());
    CHECK(input_error([&] {
              auto f = open_job_trace(path, Format::helios, BadRowPolicy::fail);
              read_all(*f);
          }) == path + ": line 6: column 'submit_time': expected a date 'YYYY-MM-DD HH:MM:SS[+HH:MM]' or Unix seconds, got 'June 9th'");
}

TEST_CASE("helios sorts a log that is not in submission order") {
    TempDir dir("helios-unsorted");
    const auto path = dir.write("cluster_log.csv",
                                "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                                "2,u,vc,1,1,1,COMPLETED,2020-06-09 18:00:10,2020-06-09 18:00:10,2020-06-09 18:01:10,60,0\n"
                                "1,u,vc,2,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0\n");
    auto r = open_job_trace(path, Format::helios, BadRowPolicy::fail);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].id == "1");
    CHECK(jobs[0].submit_s == 0);
    CHECK(jobs[1].id == "2");
    CHECK(jobs[1].submit_s == 10);
}

TEST_CASE("acme reads both clusters' layouts, applying the dates' UTC offsets, with the job type as workload") {
    TempDir dir("acme");
    const auto seren = dir.write("trace_seren.csv",
                                 "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
                                 "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n"
                                 "5778469,u5907,1,8,128,Pretrain,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n"
                                 "5778470,u5908,1,0,16,Debug,COMPLETED,2023-03-01 00:24:00+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,11,0.0\n");
    CHECK(sniff_job_format(seren) == Format::acme);
    auto r = open_job_trace(seren, Format::acme, BadRowPolicy::fail);
    auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(r->not_run() == 1);
    CHECK(jobs[0].workload == "Other");
    CHECK(jobs[0].duration_s == 117);
    CHECK(jobs[1].submit_s == 336);
    CHECK(jobs[1].workload == "Pretrain");
    CHECK(jobs[1].user == "u5907");
    const auto kalos = dir.write("trace_kalos.csv",
                                 "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n"
                                 "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\n"
                                 "dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Other,CANCELLED,2023-05-17 11:28:42+00:00,2023-05-17 11:28:54+00:00,2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,5248.0\n");
    CHECK(sniff_job_format(kalos) == Format::acme);
    r = open_job_trace(kalos, Format::acme, BadRowPolicy::fail);
    jobs = read_all(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].gpus == 64);
    CHECK(jobs[0].duration_s == 18);
    CHECK(jobs[1].id == "dlc1t2ypl09b8qtp");
    CHECK(jobs[1].submit_s == 1664);
    CHECK(jobs[1].duration_s == 82);
}

TEST_CASE("rentsim's csv reads every column and an out-of-order row is bad with its line") {
    TempDir dir("csv");
    const auto path = dir.write("jobs.csv",
                                "# two training jobs and a late one\n"
                                "id,submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok,workload\n"
                                "train-1,0,8,3600,H100,alice,1,false,GPT-class 7B\n"
                                ",30.5,1,60,,bob,0,1,\n"
                                "late,10,2,60,,bob,0,true,\n"
                                "after,40,2,60,A100,carol,-2,0,ResNet-class\n");
    CHECK(sniff_job_format(path) == Format::csv);
    auto r = open_job_trace(path, Format::csv, BadRowPolicy::skip);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 3);
    CHECK(r->skipped() == 1);
    REQUIRE(r->bad_rows().size() == 1);
    CHECK(r->bad_rows()[0].line == 5);
    CHECK(r->bad_rows()[0].message == "submitted before the row above it: a rentsim job CSV must be sorted by submission time");
    CHECK(jobs[0].id == "train-1");
    CHECK(jobs[0].gpus == 8);
    CHECK(jobs[0].gpu_type == "H100");
    CHECK(jobs[0].priority == 1);
    CHECK_FALSE(jobs[0].spot_ok);
    CHECK(jobs[0].workload == "GPT-class 7B");
    CHECK(jobs[1].id == "line 4");
    CHECK(jobs[1].submit_s == 30.5);
    CHECK(jobs[1].spot_ok);
    CHECK(jobs[2].priority == -2);
    CHECK(jobs[2].line == 6);
    CHECK(input_error([&] {
              auto f = open_job_trace(path, Format::csv, BadRowPolicy::fail);
              read_all(*f);
          }) == path + ": line 5: submitted before the row above it: a rentsim job CSV must be sorted by submission time");
}

TEST_CASE("rentsim's csv names each bad cell, and a header with unknown or missing columns is fatal") {
    TempDir dir("csv-bad");
    const auto cells = dir.write("cells.csv",
                                 "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok\n"
                                 "0,0,60,,u,0,false\n"
                                 "0,1,-5,,u,0,false\n"
                                 "0,1,60,,u,high,false\n"
                                 "0,1,60,,u,0,maybe\n"
                                 "-1,1,60,,u,0,false\n"
                                 "0,1,60,,u,0\n");
    auto r = open_job_trace(cells, Format::csv, BadRowPolicy::skip);
    CHECK(read_all(*r).empty());
    REQUIRE(r->bad_rows().size() == 6);
    const std::vector<std::string> expected{
        "column 'gpus': expected a whole number of GPUs from 1 to 1048576, got '0'",
        "column 'duration_s': expected seconds > 0, got '-5'",
        "column 'priority': expected a whole number from -1000000 to 1000000, got 'high'",
        "column 'spot_ok': expected true, false, 1 or 0, got 'maybe'",
        "column 'submit_s': expected seconds >= 0, got '-1'",
        "expected 7 fields as in the header, got 6"};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(r->bad_rows()[i].line == static_cast<std::int64_t>(i) + 2);
        CHECK(r->bad_rows()[i].message == expected[i]);
    }
    const auto unknown = dir.write("unknown.csv", "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok,prio\n");
    CHECK(input_error([&] { open_job_trace(unknown, Format::csv, BadRowPolicy::skip); }) ==
          unknown + ": line 1: unknown column 'prio'; did you mean 'priority'? valid: submit_s, gpus, duration_s, gpu_type, user, "
                    "priority, spot_ok, id, workload (required: submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok)");
    const auto missing = dir.write("missing.csv", "submit_s,gpus,duration_s\n0,1,60\n");
    CHECK(input_error([&] { open_job_trace(missing, Format::csv, BadRowPolicy::skip); }) ==
          missing + ": line 1: the header has no column 'gpu_type'; the rentsim job CSV has the columns "
                    "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok");
    const auto empty = dir.write("empty.csv", "");
    CHECK(input_error([&] { open_job_trace(empty, Format::csv, BadRowPolicy::skip); }) ==
          empty + ": line 1: expected a header row, got an empty file");
}

TEST_CASE("skipping keeps the first 20 bad rows and counts them all") {
    TempDir dir("csv-many");
    std::string text = "submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok\n";
    for (int i = 0; i < 25; ++i) text += "0,x,60,,u,0,false\n";
    text += "5,1,60,,u,0,false\n";
    auto r = open_job_trace(dir.write("many.csv", text), Format::csv, BadRowPolicy::skip);
    CHECK(read_all(*r).size() == 1);
    CHECK(r->skipped() == 25);
    REQUIRE(r->bad_rows().size() == 20);
    CHECK(r->bad_rows().front().line == 2);
    CHECK(r->bad_rows().back().line == 21);
}

TEST_CASE("a file given in the wrong format is refused by its header, naming the expected columns") {
    const auto philly = shipped("scenarios/traces/jobs/philly_pollux/philly.csv");
    CHECK(input_error([&] { open_job_trace(philly, Format::openb, BadRowPolicy::skip); }) ==
          philly + ": line 1: the header has no column 'name'; an openb pod list has the columns "
                   "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time");
    CHECK(input_error([&] { open_job_trace("no/such/trace.csv", Format::philly_csv, BadRowPolicy::skip); }) ==
          "no/such/trace.csv: cannot open file");
}

TEST_CASE("gavel refuses an unknown job type with a did-you-mean, and rows out of arrival order") {
    TempDir dir("gavel");
    const auto path = dir.write("t.trace",
                                "ResNet-50 (batch size 64)\tcmd\t-n\t1\t1000\t10.0\t2\n"
                                "ResNet-50 (batch size 6)\tcmd\t-n\t1\t1000\t20.0\t1\n"
                                "A3C\tcmd\t-n\t1\t100\t5.0\t1\n"
                                "A3C\tcmd\t-n\t1\t0\t30.0\t1\n"
                                "A3C\tcmd\t-n\t1\t100\t40.0\n");
    auto r = open_job_trace(path, Format::gavel, BadRowPolicy::skip);
    const auto jobs = read_all(*r);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].gpus == 2);
    CHECK(jobs[0].duration_s == doctest::Approx(1000 / 5.4575999796347645).epsilon(1e-12));
    REQUIRE(r->bad_rows().size() == 4);
    CHECK(r->bad_rows()[0].message.starts_with(
        "field 1: unknown Gavel job type 'ResNet-50 (batch size 6)'; did you mean 'ResNet-50 (batch size 16)'? valid: A3C, "));
    CHECK(r->bad_rows()[1].message == "submitted before the row above it: a Gavel trace must be sorted by submission time");
    CHECK(r->bad_rows()[2].message == "field 5 (total steps): expected a whole number > 0, got '0'");
    CHECK(r->bad_rows()[3].message ==
          "expected 7 tab-separated fields (job type, command, step flag, needs data dir, total steps, arrival time s, "
          "scale factor), got 6");
}

TEST_CASE("the format registry lists the eight formats and suggests a name for a typo") {
    const auto& reg = job_format_registry();
    CHECK(std::vector<std::string_view>(reg.names().begin(), reg.names().end()) ==
          std::vector<std::string_view>{"philly", "philly-csv", "gavel", "pai", "helios", "acme", "openb", "csv"});
    CHECK(reg.get("philly-csv") == Format::philly_csv);
    CHECK(reg.unknown_message("phily").starts_with("unknown job trace format 'phily'; did you mean 'philly'? valid: philly, "));
}

TEST_CASE("sniffing tells apart the headers of every format and gives up on anything else") {
    TempDir dir("sniff");
    CHECK(sniff_job_format(dir.write("a.json", "\xEF\xBB\xBF  \n[{}]")) == Format::philly);
    CHECK(sniff_job_format(dir.write("b.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n")) == Format::philly_csv);
    CHECK(sniff_job_format(dir.write("c.csv", "job_name,inst_id,user,status,start_time,end_time\n")) == Format::pai);
    CHECK(sniff_job_format(dir.write("d.csv", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\r\n")) ==
          Format::helios);
    CHECK(sniff_job_format(dir.write("e.csv", "# mine\nsubmit_s,gpus,duration_s,gpu_type,user,priority,spot_ok\n")) == Format::csv);
    CHECK(sniff_job_format(dir.write("f.csv", "a,b,c\n1,2,3\n")) == std::nullopt);
    CHECK(sniff_job_format(dir.write("g.csv", "")) == std::nullopt);
    CHECK(sniff_job_format(dir.write("h.csv", "j,i,u,Terminated,abc,\n")) == std::nullopt);
}
