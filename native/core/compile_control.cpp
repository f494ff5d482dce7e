#include "tagmask/compile_control.h"

#include "tagmask/error.h"

namespace tagmask {
namespace {

thread_local CompileControl* current = nullptr;

}  // namespace

void CompileControl::Check() const {
  if (Cancelled()) throw Error(ErrorCode::Aborted, "the compilation was aborted");
}

CompileControl::Scope::Scope(CompileControl* control) noexcept : previous_(current) { current = control; }
CompileControl::Scope::~Scope() { current = previous_; }

CompileControl* CurrentCompileControl() noexcept { return current; }

}  // namespace tagmask
