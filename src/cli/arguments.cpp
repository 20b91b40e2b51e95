// weftc's command line (arguments.h).
#include "cli/arguments.h"

#include <algorithm>
#include <iostream>
#include <string_view>

namespace weft::cli {

const char* const kUsage =
    "usage: weftc FILE.py [--emit-cuda | --ptx | --cubin | --fatbin | --ltoir | --dump-ast | --dump-types]\n"
    "             [-arch=sm_XY]... [-code=CODE,...] [-gencode arch=compute_XY,code=CODE]... [-rdc]\n"
    "             [--link FILE]... [-o OUT]\n"
    "       weftc --version | --list-gpu-arch | --list-gpu-code | --print-include-dir | --help\n"
    "\n"
    "Compiles the entry points of FILE.py into one translation unit: every @kernel whose\n"
    "parameters are all annotated (e.g. `def k(a: device.float32[:], n: device.int32)`) and every\n"
    "@func(interop=True). Interoperable functions and kernels keep their Python names as extern \"C\"\n"
    "symbols; other kernels are weft_<name>_<n>_<hash>. The front end runs once; each virtual\n"
    "architecture keeps its own `if target(...)` branches.\n"
    "\n"
    "What to produce (default --cubin):\n"
    "  --dump-ast            print the file's AST as CPython's ast.dump(ast.parse(src)) and stop\n"
    "  --dump-types          print the typed program (every function, its locals and each\n"
    "                        expression with its type) and stop\n"
    "  --emit-cuda           print the CUDA C++ translation unit and stop (nvcc -rdc=true compiles\n"
    "                        it with -I$(weftc --print-include-dir))\n"
    "  --ptx                 compile with NVRTC and print the PTX of each virtual architecture\n"
    "                        (after a `// sm_XY` line when there are several)\n"
    "  --cubin               SASS for one GPU target, written to OUT, or to FILE.cubin in the\n"
    "                        current directory; with several GPU targets, a fatbin as --fatbin\n"
    "  --fatbin              every image the targets ask for, SASS and PTX, combined by the\n"
    "                        toolkit's fatbinary into one fatbin (OUT, or FILE.fatbin)\n"
    "  --ltoir               relocatable LTO-IR for nvJitLink, for one virtual architecture\n"
    "                        (OUT, or FILE.ltoir)\n"
    "\n"
    "Targets, spelled as nvcc spells them (a value follows a space or '='; lists take commas):\n"
    "  -arch, --gpu-architecture sm_XY\n"
    "                        SASS for sm_XY and PTX for compute_XY, as nvcc (default sm_90);\n"
    "                        repeatable. A suffix asks for more features: sm_90a the\n"
    "                        architecture-specific ones (that GPU only), sm_100f the family ones\n"
    "                        (later minor versions too); `if target(...)` tells them apart\n"
    "  -arch compute_XY      PTX for compute_XY only; with -code, the virtual architecture that\n"
    "                        -code's images are compiled from\n"
    "  -code, --gpu-code CODE,...\n"
    "                        with one -arch: SASS for each sm_XY (from the -arch's PTX, by\n"
    "                        nvJitLink, where the two differ) and PTX for compute_XY\n"
    "  -gencode, --generate-code arch=compute_XY,code=CODE\n"
    "                        one virtual architecture and its images (code=[sm_90,compute_90]\n"
    "                        for several); repeatable\n"
    "\n"
    "Other options:\n"
    "  -rdc                  relocatable device code (--cubin, --ptx): extern functions may be\n"
    "                        defined in code linked later\n"
    "  --link FILE           link the unit with FILE through nvJitLink into one cubin (one GPU\n"
    "                        target): CUDA C++ (.cu, compiled by NVRTC with weft's headers on the\n"
    "                        include path), .ltoir, .cubin, .ptx, .fatbin, .o or .a; repeatable\n"
    "  -o, --output-file OUT write the output to OUT\n"
    "  --print-include-dir   print the directory of weft's device headers and exit\n"
    "  --list-gpu-arch       print the virtual architectures (compute_XY) NVRTC compiles for\n"
    "  --list-gpu-code       print the GPU targets (sm_XY) NVRTC compiles for\n"
    "  --version             print weftc's and NVRTC's versions\n"
    "  -h, --help            print this help\n"
    "\n"
    "weft's device headers are found at $WEFT_INCLUDE_DIR, else in the installed Python package\n"
    "(<prefix>/lib/pythonX.Y/site-packages/weft/include, <prefix> being the parent of weftc's\n"
    "folder), else in the source tree weftc was built from.\n";

namespace {

// A target as the command line spells it: sm_XY (a GPU target) or compute_XY (a virtual
// architecture), each with an optional a/f suffix.
struct TargetArgument {
  sema::GpuTarget target;
  bool isVirtual = false;
};

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    size_t comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

class ArgumentParser {
 public:
  ArgumentParser(int argc, char** argv) : args_(argv + 1, argv + argc) {}

  std::optional<Options> parse(int& exitCode) {
    exitCode_ = &exitCode;
    for (size_t i = 0; i < args_.size(); ++i) {
      const std::string& arg = args_[i];
      if (arg == "-h" || arg == "--help") {
        std::cout << kUsage;
        exitCode = 0;
        return std::nullopt;
      }
      if (auto stage = stageOption(arg)) {
        options_.stage = *stage;
      } else if (arg == "-rdc") {
        options_.relocatable = true;
      } else if (arg == "--print-include-dir") {
        options_.printIncludeDir = true;
      } else if (arg == "--version") {
        options_.printVersion = true;
      } else if (arg == "--list-gpu-arch") {
        options_.listGpuArch = true;
      } else if (arg == "--list-gpu-code") {
        options_.listGpuCode = true;
      } else if (const ValueOption* option = valueOption(arg)) {
        std::string value;
        if (arg.size() > option->spelling.size()) {
          value = arg.substr(option->spelling.size() + 1);  // -arch=sm_90
        } else if (i + 1 < args_.size()) {
          value = args_[++i];
        } else {
          return fail(arg + " needs a value");
        }
        takeValue(option->canonical, value);
      } else if (!arg.empty() && arg[0] == '-') {
        return fail("unknown option '" + arg + "'");
      } else if (options_.input.empty()) {
        options_.input = arg;
      } else {
        return fail("one input file at a time (got '" + options_.input + "' and '" + arg + "')");
      }
    }
    bool queryOnly =
        options_.printIncludeDir || options_.printVersion || options_.listGpuArch || options_.listGpuCode;
    if (options_.input.empty() && !queryOnly) return fail("no input file");
    if (!buildImages()) return std::nullopt;
    return checkStage();
  }

 private:
  static std::optional<Stage> stageOption(const std::string& arg) {
    if (arg == "--dump-ast") return Stage::DumpAst;
    if (arg == "--dump-types") return Stage::DumpTypes;
    if (arg == "--emit-cuda") return Stage::EmitCuda;
    if (arg == "--ptx") return Stage::Ptx;
    if (arg == "--cubin") return Stage::Cubin;
    if (arg == "--fatbin") return Stage::Fatbin;
    if (arg == "--ltoir") return Stage::LtoIr;
    return std::nullopt;
  }

  struct ValueOption {
    std::string_view spelling;
    std::string_view canonical;
  };

  // The option `arg` spells, alone (the value is the next argument) or as SPELLING=VALUE, when
  // it takes a value; nullptr otherwise.
  static const ValueOption* valueOption(const std::string& arg) {
    static constexpr ValueOption kValueOptions[] = {
        {"-o", "-o"},
        {"--output-file", "-o"},
        {"-arch", "-arch"},
        {"--arch", "-arch"},
        {"--gpu-architecture", "-arch"},
        {"-code", "-code"},
        {"--gpu-code", "-code"},
        {"-gencode", "-gencode"},
        {"--generate-code", "-gencode"},
        {"--link", "--link"},
    };
    for (const ValueOption& option : kValueOptions) {
      if (arg == option.spelling ||
          (arg.starts_with(option.spelling) && arg.size() > option.spelling.size() &&
           arg[option.spelling.size()] == '='))
        return &option;
    }
    return nullptr;
  }

  void takeValue(std::string_view option, const std::string& value) {
    if (option == "-o") {
      options_.output = value;
    } else if (option == "--link") {
      options_.links.push_back(value);
    } else if (option == "-arch") {
      for (const std::string& item : splitList(value)) archs_.push_back(item);
    } else if (option == "-code") {
      for (const std::string& item : splitList(value)) codes_.push_back(item);
    } else {
      gencodes_.push_back(value);
    }
  }

  std::optional<TargetArgument> target(const std::string& text, const std::string& option) {
    for (const char* prefix : {"sm_", "compute_"}) {
      if (std::optional<sema::GpuTarget> parsed = sema::parseTarget(text, prefix)) {
        if (!sema::isKnownTarget(*parsed)) {
          fail(option + ": '" + text +
               "' is not a CUDA architecture (weftc --list-gpu-code lists those NVRTC compiles for)");
          return std::nullopt;
        }
        return TargetArgument{*parsed, std::string_view(prefix) == "compute_"};
      }
    }
    fail(option +
         " takes sm_XY or compute_XY, with an optional a or f suffix (e.g. sm_90, sm_90a, sm_100f), not '" +
         text + "'");
    return std::nullopt;
  }

  void addImage(Image image) {
    if (std::find(options_.images.begin(), options_.images.end(), image) == options_.images.end())
      options_.images.push_back(image);
  }

  // The images one virtual architecture's codes ask for; false after reporting.
  bool addCodes(sema::GpuTarget virtualArch, const std::vector<std::string>& codes,
                const std::string& option) {
    for (const std::string& code : codes) {
      std::optional<TargetArgument> parsed = target(code, option);
      if (!parsed) return false;
      if (parsed->isVirtual && parsed->target != virtualArch) {
        fail(option + ": " + code + " is PTX of another virtual architecture than " +
             sema::targetName(virtualArch, "compute_"));
        return false;
      }
      addImage(
          {virtualArch, parsed->isVirtual ? std::nullopt : std::optional<sema::GpuTarget>(parsed->target)});
    }
    return true;
  }

  bool buildImages() {
    for (const std::string& gencode : gencodes_) {
      size_t code = gencode.find(",code=");
      if (!gencode.starts_with("arch=") || code == std::string::npos) {
        fail("-gencode takes arch=compute_XY,code=sm_XY (or code=[sm_XY,compute_XY]), not '" + gencode + "'");
        return false;
      }
      std::optional<TargetArgument> arch = target(gencode.substr(5, code - 5), "-gencode arch=");
      if (!arch) return false;
      if (!arch->isVirtual) {
        fail("-gencode arch= takes a virtual architecture (compute_XY), not '" + gencode.substr(5, code - 5) +
             "'");
        return false;
      }
      std::string codes = gencode.substr(code + 6);
      if (codes.size() >= 2 && codes.front() == '[' && codes.back() == ']')
        codes = codes.substr(1, codes.size() - 2);
      if (!addCodes(arch->target, splitList(codes), "-gencode code=")) return false;
    }
    if (!codes_.empty()) {
      if (archs_.size() != 1) {
        fail("-code applies to exactly one -arch: the virtual architecture its images are compiled from");
        return false;
      }
      std::optional<TargetArgument> arch = target(archs_.front(), "-arch");
      return arch && addCodes(arch->target, codes_, "-code");
    }
    for (const std::string& text : archs_) {
      std::optional<TargetArgument> arch = target(text, "-arch");
      if (!arch) return false;
      // As nvcc: -arch=sm_XY is -arch=compute_XY -code=sm_XY,compute_XY.
      if (!arch->isVirtual) addImage({arch->target, arch->target});
      addImage({arch->target, std::nullopt});
    }
    if (options_.images.empty()) {
      sema::GpuTarget hopper{90};
      addImage({hopper, hopper});
      addImage({hopper, std::nullopt});
    }
    return true;
  }

  std::optional<Options> checkStage() {
    size_t sass = std::count_if(options_.images.begin(), options_.images.end(),
                                [](const Image& image) { return image.sass.has_value(); });
    if (!options_.links.empty()) {
      if (options_.stage != Stage::Cubin)
        return fail("--link produces a cubin; it cannot be used with another output");
      if (sass != 1) return fail("--link links for one GPU target; give one -arch=sm_XY");
    }
    if (options_.stage == Stage::LtoIr && virtualArchitectures(options_.images).size() > 1)
      return fail("--ltoir takes one virtual architecture; give one -arch");
    if (options_.stage == Stage::Cubin && sass == 0)
      return fail("--cubin needs a GPU target (-arch=sm_XY); compute_XY alone asks for PTX");
    if (options_.stage == Stage::Cubin && sass > 1) options_.stage = Stage::Fatbin;
    return options_;
  }

  std::optional<Options> fail(const std::string& message) {
    std::cerr << "weftc: error: " << message << "\n" << kUsage;
    *exitCode_ = 2;
    return std::nullopt;
  }

  std::vector<std::string> args_;
  Options options_;
  std::vector<std::string> archs_, codes_, gencodes_;
  int* exitCode_ = nullptr;
};

}  // namespace

std::optional<Options> parseArguments(int argc, char** argv, int& exitCode) {
  return ArgumentParser(argc, argv).parse(exitCode);
}

std::vector<sema::GpuTarget> virtualArchitectures(const std::vector<Image>& images) {
  std::vector<sema::GpuTarget> archs;
  for (const Image& image : images)
    if (std::find(archs.begin(), archs.end(), image.virtualArch) == archs.end())
      archs.push_back(image.virtualArch);
  return archs;
}

}  // namespace weft::cli
