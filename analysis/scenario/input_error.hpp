// Errors in user input: they name the file, the location (a JSON pointer or a line) and what
// was expected. `main` turns them into exit status 2; nothing else catches them.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace rentsim::analysis {

class InputError : public std::runtime_error {
public:
    // `file` is a path, a command-line option ("--gpus") or empty; `where` is a JSON pointer
    // ("/cluster/gpus"), "line N, column M", or empty.
    InputError(std::string file, std::string where, std::string message)
        : std::runtime_error(format(file, where, message)),
          file_(std::move(file)), where_(std::move(where)), message_(std::move(message)) {}

    const std::string& file() const { return file_; }
    const std::string& where() const { return where_; }
    const std::string& message() const { return message_; }

private:
    // "file: where: message", leaving out the empty parts and their separators.
    static std::string format(const std::string& f, const std::string& w, const std::string& m) {
        std::string s;
        for (const std::string* part : {&f, &w})
            if (!part->empty()) s += *part + ": ";
        return s + m;
    }
    std::string file_, where_, message_;
};

}  // namespace rentsim::analysis
