-- The help file is valid (:helptags finds no duplicate tags) and documents
-- every subcommand and every <Plug> mapping the plugin defines.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

h.run('nvim doc', function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile(vim.fn.readfile(h.plugin_dir .. '/doc/engram.txt'), dir .. '/engram.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(dir))
  local tags = {}
  for _, line in ipairs(vim.fn.readfile(dir .. '/tags')) do
    tags[line:match('^([^\t]+)')] = true
  end

  for _, tag in ipairs({ 'engram', ':Engram', 'engram-options', 'g:engram', 'engram.setup()', 'engram-trouble' }) do
    h.ok(tags[tag], 'tag ' .. tag)
  end
  for _, sub in ipairs(require('engram').subcommands) do
    h.ok(tags[':Engram-' .. sub], 'the subcommand ' .. sub .. ' is documented')
  end
  local plugs = 0
  for _, mode in ipairs({ 'n', 'x' }) do
    for _, map in ipairs(vim.api.nvim_get_keymap(mode)) do
      local name = map.lhs:match('^<Plug>%((engram%-[%w-]+)%)$')
      if name then
        plugs = plugs + 1
        h.ok(tags['<Plug>(' .. name .. ')'], 'the mapping ' .. map.lhs .. ' is documented')
      end
    end
  end
  h.ok(plugs >= 8, 'the plugin defines its <Plug> mappings (' .. plugs .. ')')
end)
