// The importers' streaming record reader and cell parsers.
#include <doctest/doctest.h>

#include "analysis/jobs/records.hpp"
#include "jobs_test_util.hpp"

using namespace rentsim::jobs;
using namespace rentsim::jobs::test;

TEST_CASE("a quoted CSV field may hold commas, doubled quotes and line breaks, and later lines count them") {
    TempDir dir("records");
    const auto path = dir.write("a.csv", "# a comment above the header\r\na,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n\n\"two\nlines\",z\nlast,row");
    RecordReader in(path, ',');
    RecordReader::Record r;
    REQUIRE(in.next(r));
    CHECK(r.line == 2);
    CHECK(r.fields == std::vector<std::string>{"a", "b"});
    REQUIRE(in.next(r));
    CHECK(r.line == 3);
    CHECK(r.fields == std::vector<std::string>{"x,1", "say \"hi\""});
    REQUIRE(in.next(r));
    CHECK(r.line == 5);  // after a blank line
    CHECK(r.fields == std::vector<std::string>{"two\nlines", "z"});
    REQUIRE(in.next(r));
    CHECK(r.line == 7);  // the quoted line break counted
    CHECK(r.fields == std::vector<std::string>{"last", "row"});  // no final newline
    CHECK_FALSE(in.next(r));
    in.rewind();
    REQUIRE(in.next(r));
    CHECK(r.line == 2);
}

TEST_CASE("a record that cannot be read says why and reading goes on at the next line") {
    TempDir dir("records-bad");
    const auto path = dir.write("a.csv", "a,\"b\"c\nok,1\n" + std::string(5000, 'x') + ",2\nok,3\n" + std::string(2000, ',') +
                                             "\n\"open");
    RecordReader in(path, ',');
    RecordReader::Record r;
    REQUIRE(in.next(r));
    CHECK(r.error == "text after a closing quote; expected ',' or the end of the line");
    REQUIRE(in.next(r));
    CHECK(r.error.empty());
    CHECK(r.fields == std::vector<std::string>{"ok", "1"});
    REQUIRE(in.next(r));
    CHECK(r.line == 3);
    CHECK(r.error == "a cell of more than 4096 characters");
    REQUIRE(in.next(r));
    CHECK(r.line == 4);
    CHECK(r.fields == std::vector<std::string>{"ok", "3"});
    REQUIRE(in.next(r));
    CHECK(r.error == "more than 1024 fields");
    REQUIRE(in.next(r));
    CHECK(r.line == 6);
    CHECK(r.error == "a quoted field is not closed before the end of the file");
    CHECK_FALSE(in.next(r));
}

TEST_CASE("tab-separated records keep quotes as plain characters") {
    TempDir dir("records-tab");
    const auto path = dir.write("a.trace", "say \"x\ty\"\t3\n");
    RecordReader in(path, '\t');
    RecordReader::Record r;
    REQUIRE(in.next(r));
    CHECK(r.fields == std::vector<std::string>{"say \"x", "y\"", "3"});
}

TEST_CASE("dates read as seconds since 1970 in UTC, with their offset applied, and impossible dates are refused") {
    CHECK(parse_datetime("2017-10-09 07:01:55") == 1507532515.0);
    CHECK(parse_datetime("2017-10-09T07:01:55Z") == 1507532515.0);
    CHECK(parse_datetime("2023-03-01 00:18:22+08:00") == 1677601102.0);
    CHECK(parse_datetime("2016-02-29 23:59:59") == 1456790399.0);
    CHECK(parse_datetime("1969-12-31 00:00:00") == -86400.0);
    CHECK(parse_datetime("2017-10-09 07:01:55.5") == 1507532515.5);
    CHECK_FALSE(parse_datetime("2017-02-29 00:00:00"));
    CHECK_FALSE(parse_datetime("2017-13-01 00:00:00"));
    CHECK_FALSE(parse_datetime("2017-10-09 24:00:00"));
    CHECK_FALSE(parse_datetime("2017-10-09"));
    CHECK_FALSE(parse_datetime("2017-10-09 07:01:55 "));
    CHECK_FALSE(parse_datetime("None"));
}

TEST_CASE("numbers are read whole or not at all") {
    CHECK(parse_integer("8") == 8);
    CHECK(parse_integer("8.0") == 8);
    CHECK_FALSE(parse_integer("8.5"));
    CHECK_FALSE(parse_integer(" 8"));
    CHECK_FALSE(parse_integer(""));
    CHECK(parse_number("1e3") == 1000.0);
    CHECK_FALSE(parse_number("inf"));
    CHECK_FALSE(parse_number("nan"));
    CHECK_FALSE(parse_number("3s"));
}
