# SPDX-License-Identifier: MIT
# bash completion for mntsnap(1); installed as
# share/bash-completion/completions/mntsnap.
_mntsnap()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		list | stat | save | show | diff | seccomp | ns | watch | supervise) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'list stat save show diff seccomp ns watch supervise --help --version' -- "$cur"))
		return
	fi

	local target='--pid --ns --ns-id'
	case $prev in
	--pid)
		COMPREPLY=($(compgen -W "$(ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$cur"))
		return ;;
	--ns | --mountinfo-file | --merge | --save | --policy | --listen | --listener | --audit)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--under)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--ns-id | --threads | -t | --arch | --caps | --old-prefix | --new-prefix | --count | --timeout | --kernel)
		return ;;
	--backend)
		COMPREPLY=($(compgen -W 'auto statmount mountinfo' -- "$cur"))
		return ;;
	--set)
		COMPREPLY=($(compgen -W 'query full' -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W 'oci docker systemd c' -- "$cur"))
		return ;;
	-o)
		case $cmd in
		diff) COMPREPLY=($(compgen -W 'text json' -- "$cur")) ;;
		ns) COMPREPLY=($(compgen -W 'table json' -- "$cur")) ;;
		watch) COMPREPLY=($(compgen -W 'ACTION TARGET SOURCE FSTYPE OPTIONS OLD-TARGET OLD-OPTIONS UNIQ-ID CHANGED' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W 'table tree json mountinfo' -- "$cur")) ;;
		esac
		return ;;
	esac

	local opts
	case $cmd in
	list) opts="$target -o --backend --mountinfo-file -t --under --threads --allow-inconsistent --help" ;;
	stat) opts="$target -o --help" ;;
	save) opts="$target --backend --full --strict --under --allow-inconsistent --help" ;;
	show) opts="-o --help" ;;
	diff) opts="-o --by-path --ignore-ids --old-prefix --new-prefix --help" ;;
	seccomp) opts="--format --set --arch --caps --merge --errno-enosys --kernel --notify-mounts --listener --help" ;;
	ns) opts="-o --help" ;;
	supervise) opts="--policy --listen --audit --check --help" ;;
	watch) opts="$target --json -o -n --count --timeout --save --no-settle --pollpri --help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _mntsnap mntsnap
