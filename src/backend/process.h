// Running a toolkit program (the host compiler, fatbinary) without a shell.
#pragma once

#include <string>
#include <vector>

namespace weft::backend {

// Runs `arguments` (arguments[0] is the program's path; no shell) and returns its exit status
// (-1 when it could not start or was killed); `output` receives its stdout and stderr.
int runProcess(const std::vector<std::string>& arguments, std::string& output);

}  // namespace weft::backend
