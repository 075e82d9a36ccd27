// Must not compile: a template uid without a backend prefix.
#include <ctmatch/tune/kernel_template.hpp>

using namespace ctmatch::tune;

struct NoPrefix : KernelTemplateBase<"mm"> {
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};
NoPrefix t;
