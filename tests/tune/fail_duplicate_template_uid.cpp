// Must not compile: two templates with one uid in one TemplateRegistry.
#include <ctmatch/tune/template_registry.hpp>

using namespace ctmatch::tune;

struct First : KernelTemplateBase<"cuda::mm"> {
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};
struct Second : KernelTemplateBase<"cuda::mm"> {
  std::shared_ptr<ChoiceCaller> choice_or_none(const ChoiceRequest&) const override { return nullptr; }
};

TemplateRegistry<First, Second> registry;
