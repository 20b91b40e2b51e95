// The Compiler's front half: sema and codegen, once per specialization for every target.
#include "runtime/runtime.h"
#include "support/check.h"

namespace weft::runtime {

FrontEndResult Compiler::compileFrontEnd(const sema::CheckRequest& request, const CompilerOptions& options) {
  FrontEndResult result;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  sema::CheckRequest checked = request;
  checked.debug = request.debug || options.debug;
  checked.parses = &parses_;
  checked.pipelineStages = options.pipelineStages;
  try {
    // The TypeContext interns types for every specialization; sema is its only writer.
    std::lock_guard<std::mutex> lock(mutex_);
    sema::TypedProgram program = sema::check(checked, types_, sources, diagnostics);
    result.diagnostics = diagnostics.detach();
    if (diagnostics.hasErrors()) return result;
    WEFT_CHECK(program.kernel >= 0 && program.kernel < static_cast<int>(program.functions.size()),
               "sema succeeded without a kernel");
    const sema::TypedFunction& kernel = program.functions[static_cast<size_t>(program.kernel)];
    result.unit = codegen::emitCuda(program, sources);
    result.kernelName = kernel.pythonName;
    for (int param : kernel.params) {
      const sema::Local& local = kernel.locals.at(static_cast<size_t>(param));
      result.parameterTypes.push_back(local.type);
      result.parameterNames.push_back(local.name);
    }
    result.argumentToParam = program.argumentToParam;
    result.globals = program.globals;
    result.localArrayBytes = program.localArrayBytes;
    result.tileThreads = program.tileBlock.threads;
    result.tileSharedBytes = program.tileSharedBytes;
    result.ok = true;
  } catch (const InternalCompilerError& error) {
    result.ok = false;
    std::string what = error.what();
    if (what.rfind("internal compiler error", 0) != 0) what = "internal compiler error: " + what;
    result.diagnostics = diagnostics.detach();
    result.internalError =
        what + "\nThis is a bug in weft, not in your program; please report it with the kernel's source.\n";
  }
  return result;
}

}  // namespace weft::runtime
