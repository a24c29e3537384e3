-- engram for Neovim: the workspace's memory through the built-in LSP client.
--
-- Nothing needs configuring: plugin/engram.lua starts engram for file
-- buffers under a directory holding .engram/ or .git/ and defines :Engram.
-- setup() only overrides options (see :help engram-options).
local M = {}

function M.setup(opts)
  require('engram.config').set(opts)
end

-- Starts or reuses the server for the buffer's workspace; returns the client id.
function M.attach(bufnr)
  return require('engram.client').attach(bufnr)
end

-- The BufReadPost/BufNewFile hook: attach unless autostart is off.
function M.autostart(bufnr)
  if require('engram.config').get().autostart then
    M.attach(bufnr)
  end
end

local function commands()
  return require('engram.commands')
end

function M.remember(text, range)
  commands().remember(text, range)
end

function M.recall(query)
  commands().recall(query)
end

function M.status()
  commands().status()
end

function M.reverify(arg)
  commands().reverify(arg)
end

function M.retract(arg)
  commands().retract(arg)
end

function M.delegate(task)
  commands().delegate(task)
end

function M.memories()
  commands().memories()
end

function M.hover()
  commands().hover()
end

function M.restart()
  commands().restart()
end

-- :Engram {subcommand} [args]
local subcommands = {
  remember = function(args, opts)
    M.remember(args, { count = opts.range, line1 = opts.line1, line2 = opts.line2 })
  end,
  recall = M.recall,
  status = M.status,
  memories = M.memories,
  reverify = M.reverify,
  retract = M.retract,
  delegate = M.delegate,
  hover = M.hover,
  restart = M.restart,
}

M.subcommands = vim.tbl_keys(subcommands)
table.sort(M.subcommands)

function M.command(opts)
  local name, rest = opts.args:match('^%s*(%S*)%s*(.-)%s*$')
  local fn = subcommands[name]
  if not fn then
    vim.notify(
      ('engram: %s; use one of: %s'):format(
        name == '' and 'a subcommand is needed' or ("unknown subcommand '" .. name .. "'"),
        table.concat(M.subcommands, ', ')
      ),
      vim.log.levels.ERROR,
      { title = 'engram' }
    )
    return
  end
  fn(rest, opts)
end

-- Completes the subcommand (the first argument) only.
function M.complete(arglead, cmdline, cursorpos)
  local before = cmdline:sub(1, cursorpos)
  local words = vim.split(vim.trim(before), '%s+')
  local completing_first = #words == 1 or (#words == 2 and not before:match('%s$'))
  if not completing_first then
    return {}
  end
  return vim.tbl_filter(function(s)
    return s:sub(1, #arglead) == arglead
  end, M.subcommands)
end

return M
