/** Chat templates and conversations: the public surface of lib/tools' prompt side. */
export { chatTemplate, chatTemplateFamilies, detectChatTemplateFamily, renderChat } from "./chat-templates.js";
export type { ChatTemplate, ChatTemplateInput } from "./chat-templates.js";
export { normalizeConversation } from "./chat-messages.js";
export type { ChatMessage, ChatToolCall } from "./chat-messages.js";
