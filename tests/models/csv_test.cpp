#include <doctest/doctest.h>

#include "models/csv.hpp"

using namespace rentsim;

TEST_CASE("quoted fields keep commas, doubled quotes and newlines") {
    const auto r = parse_csv_records("a,b\n\"x, y\",\"say \"\"hi\"\"\nthere\"\n3,4\n", "t.csv");
    REQUIRE(r.size() == 3);
    CHECK(r[1].fields[0] == "x, y");
    CHECK(r[1].fields[1] == "say \"hi\"\nthere");
    CHECK(r[1].line == 2);
    CHECK(r[2].line == 4);  // the quoted newline counts
}

TEST_CASE("CRLF line ends, blank lines and comments above the header are handled") {
    const auto r = parse_csv_records("# made by hand\r\n# second comment\r\nh1,h2\r\n\r\n1,2\r\n", "t.csv");
    REQUIRE(r.size() == 2);
    CHECK(r[0].fields == std::vector<std::string>{"h1", "h2"});
    CHECK(r[0].line == 3);
    CHECK(r[1].fields == std::vector<std::string>{"1", "2"});
    CHECK(r[1].line == 5);
}

TEST_CASE("a '#' after the first record is data, not a comment") {
    const auto r = parse_csv_records("h\n#1\n", "t.csv");
    REQUIRE(r.size() == 2);
    CHECK(r[1].fields[0] == "#1");
}

TEST_CASE("an unterminated quote names the line where its record starts") {
    try {
        (void)parse_csv_records("h\nok\n\"open,\nstill open\n", "t.csv");
        FAIL("no error");
    } catch (const CsvError& e) {
        CHECK(e.line() == 3);
        CHECK(std::string(e.what()) == "t.csv line 3: unterminated quoted field");
    }
}
